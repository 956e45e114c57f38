// The studio's transcript lines (daemon/studio/lines.ts): filtered by q with case and spacing
// ignored, at most 2000 with the total of every match; and the sample line a style preview shows
// (daemon/studio/preview.ts): one sentence's worth, at most six words, from where the first clip is.
import { describe, expect, it } from "vitest";
import type { TranscriptSegment, TranscriptWord } from "../../daemon/render/captions.js";
import { styleVersion, TRANSCRIPT_LIMIT, transcriptLines } from "../../daemon/studio/lines.js";
import { sampleWords } from "../../daemon/studio/preview.js";
import { loadStyles } from "../../daemon/render/styles.js";

/** A transcript of the given sentences, one segment each, a word a second. */
function transcript(...sentences: string[]): { words: TranscriptWord[]; segments: TranscriptSegment[] } {
  const words: TranscriptWord[] = [];
  const segments: TranscriptSegment[] = [];
  for (const s of sentences) {
    const first = words.length;
    for (const w of s.split(" ")) words.push({ text: w, start: words.length, end: words.length + 0.8, confidence: 1 });
    segments.push({ start: first, end: words.length - 0.2, text: s, speaker: "S1", words: [first, words.length] });
  }
  return { words, segments };
}

describe("studio transcript lines", () => {
  const t = transcript("Ask not what your Country can do for you.", "Ask what you can do.", "For your   country!");

  it("lists every segment with its times, and filters by q ignoring case and spacing", () => {
    const all = transcriptLines(t);
    expect(all).toMatchObject({ total: 3, limit: TRANSCRIPT_LIMIT, truncated: false });
    expect(all.segments[1]).toEqual({ start: 9, end: 13.8, text: "Ask what you can do." });
    const hit = transcriptLines(t, "  YOUR country ");
    expect(hit.segments.map((s) => s.text)).toEqual([
      "Ask not what your Country can do for you.",
      "For your   country!",
    ]);
    expect(hit.total).toBe(2);
    expect(transcriptLines(t, "moon")).toEqual({ segments: [], total: 0, limit: TRANSCRIPT_LIMIT, truncated: false });
  });

  it("holds at most 2000 segments and says how many matched", () => {
    const long = transcript(...Array.from({ length: 2500 }, (_, i) => `line ${i} said`));
    const all = transcriptLines(long);
    expect(all.segments).toHaveLength(TRANSCRIPT_LIMIT);
    expect(all).toMatchObject({ total: 2500, truncated: true });
    expect(transcriptLines(long, "line 24")).toMatchObject({ total: 111, truncated: false }); // 24, 240–249, 2400–2499
  });

  it("samples one sentence of at most six words, from the first clip's place when given", () => {
    const s = transcript("Hi.", "We choose to go to the moon in this decade.", "Not because they are easy.");
    expect(sampleWords(s)).toEqual(["We", "choose", "to", "go", "to", "the"]);
    expect(sampleWords(s, 12)).toEqual(["Not", "because", "they", "are", "easy."]);
    expect(sampleWords(transcript("Short one. Then more words here"))).toEqual(["Short", "one."]);
    expect(sampleWords({ words: [], segments: [] })).toEqual([]);
  });

  it("versions a style by its definition", () => {
    const style = loadStyles().styles[0]!;
    expect(styleVersion(style)).toBe(styleVersion({ ...style }));
    expect(styleVersion({ ...style, colour: "#FF0000" })).not.toBe(styleVersion(style));
  });
});
