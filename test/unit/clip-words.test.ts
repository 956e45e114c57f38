// The arithmetic of caption edits (daemon/account/clip-words.ts): new words keep a cue's times, edits
// build on earlier ones, sentences come from punctuation or pauses, and spans move or snap by whole
// sentences within their limits.
import { describe, expect, it } from "vitest";
import {
  clipCues,
  editedWords,
  isMaskOf,
  replaceCues,
  sentencesOf,
  shiftBySentences,
  snapToSentences,
  spreadWords,
  SpanRefusal,
  type EpisodeWord,
} from "../../daemon/account/clip-words.js";

const w = (text: string, start: number, end: number, i: number): EpisodeWord => ({
  text,
  start,
  end,
  i,
  confidence: 1,
});
/** Three punctuated sentences, 4 words each, 0.5 s a word, a 1 s pause between sentences. */
const transcript = [
  ["One", "two", "three", "four."],
  ["Five", "six", "seven", "eight."],
  ["Nine", "ten", "eleven", "twelve."],
].flatMap((ws, s) =>
  ws.map((t, k) => ({ text: t, start: s * 3 + k * 0.5, end: s * 3 + k * 0.5 + 0.4, confidence: 1 })),
);

describe("spreadWords", () => {
  it("keeps a word sent back masked as the censoring captions read showed it, and takes real retypes", () => {
    const old = [w("Damn,", 1, 1.4, 3), w("it", 1.5, 1.7, 4), w("works", 1.8, 2.2, 5)];
    expect(spreadWords(["D***,", "it", "worked"], old).map((x) => x.text)).toEqual(["Damn,", "it", "worked"]);
    expect(spreadWords(["D***,", "it", "works"], old).map((x) => x.text)).toEqual(["Damn,", "it", "works"]);
    expect(isMaskOf("s***'s", "shit's")).toBe(true);
    expect(isMaskOf("****", "damn")).toBe(false); // the first letter always shows in a mask
    expect(isMaskOf("da*n,", "damn")).toBe(false);
    expect(isMaskOf("damn", "damn")).toBe(false);
  });

  const old = [w("a", 1, 1.5, 7), w("b", 2, 2.5, 8)];
  it("keeps each old word's times when the count is the same", () => {
    expect(spreadWords(["x", "y"], old)).toMatchObject([
      { text: "x", start: 1, end: 1.5, i: 7 },
      { text: "y", start: 2, end: 2.5, i: 8 },
    ]);
  });
  it("shares the old words' spoken time by characters, never into the pause between them", () => {
    const got = spreadWords(["aa", "b", "c"], old); // 4 characters over 1 s of speech
    expect(got.map((x) => x.text)).toEqual(["aa", "b", "c"]);
    expect(got[0]).toMatchObject({ start: 1, end: 1.5 });
    expect(got[1]!.start).toBeCloseTo(2, 2);
    expect(got[1]!.end).toBeCloseTo(2.25, 2);
    expect(got[2]!.start).toBeCloseTo(2.25, 2);
    expect(got[2]!.end).toBeCloseTo(2.5, 2);
    for (const x of got) expect(old.some((o) => x.start >= o.start && x.end <= o.end + 1e-9)).toBe(true);
  });
});

describe("replaceCues and editedWords", () => {
  it("replace a cue's words at its times, and a second edit keeps the first", () => {
    const pieces = [{ start: 0, end: 9 }];
    const words0 = editedWords(transcript, null);
    const cues = clipCues(words0, pieces);
    expect(cues.map((c) => c.text)).toEqual([
      "One two three four.",
      "Five six seven eight.",
      "Nine ten eleven twelve.",
    ]);
    const first = replaceCues(words0, [{ cue: cues[1]!, text: "Fine sticks seven eight." }], null);
    const words1 = editedWords(transcript, first);
    const cues1 = clipCues(words1, pieces);
    expect(cues1[1]).toMatchObject({ text: "Fine sticks seven eight.", start: cues[1]!.start, end: cues[1]!.end });
    const second = replaceCues(words1, [{ cue: cues1[0]!, text: "Won too three four." }], first);
    const cues2 = clipCues(editedWords(transcript, second), pieces);
    expect(cues2.map((c) => c.text)).toEqual([
      "Won too three four.",
      "Fine sticks seven eight.",
      "Nine ten eleven twelve.",
    ]);
    expect(second.range).toEqual([0, 8]);
  });
});

describe("sentences", () => {
  it("end at punctuation in a punctuated transcript, at pauses of 0.6 s without", () => {
    expect(sentencesOf(transcript).map((s) => [s.start, s.end])).toEqual([
      [0, 1.9],
      [3, 4.9],
      [6, 7.9],
    ]);
    const bare = transcript.map((x) => ({ ...x, text: x.text.replace(".", "") }));
    expect(sentencesOf(bare)).toHaveLength(3); // the 1.1 s pauses
  });

  it("snap a span outward to whole sentences, refusing one that holds none", () => {
    const s = sentencesOf(transcript);
    expect(snapToSentences(s, 0.7, 3.2)).toMatchObject({ start: 0, end: 4.9 });
    expect(snapToSentences(s, 4.95, 8)).toMatchObject({ start: 6, end: 7.9 });
    expect(() => snapToSentences(s, 2, 2.9)).toThrow(SpanRefusal);
  });

  it("move a clip by whole sentences within the episode and the length limits", () => {
    const s = sentencesOf(transcript);
    const clip = { start: 3, end: 4.9, pieces: [{ start: 3, end: 4.9 }] };
    expect(shiftBySentences(s, clip, { start: 1, end: 0 })).toMatchObject({
      start: 0,
      end: 4.9,
      pieces: [{ start: 0, end: 4.9 }],
    });
    expect(shiftBySentences(s, clip, { start: 0, end: 1 })).toMatchObject({
      start: 3,
      end: 7.9,
      pieces: [{ start: 3, end: 7.9 }],
    });
    const both = {
      start: 0,
      end: 7.9,
      pieces: [
        { start: 0, end: 1.9 },
        { start: 3, end: 7.9 },
      ],
    };
    expect(shiftBySentences(s, both, { start: -1, end: 0 })).toMatchObject({
      start: 3,
      end: 7.9,
      pieces: [{ start: 3, end: 7.9 }],
    });
    const refusal = (d: { start: number; end: number }) => {
      try {
        shiftBySentences(s, clip, d);
      } catch (err) {
        return (err as SpanRefusal).field;
      }
      return "none";
    };
    expect(refusal({ start: 2, end: 0 })).toBe("start_sentence_delta");
    expect(refusal({ start: 0, end: 2 })).toBe("end_sentence_delta");
    expect(refusal({ start: -1, end: 0 })).toBe("start_sentence_delta"); // nothing would be left
  });
});
