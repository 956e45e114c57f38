// Word confidence (daemon/render/confidence.ts) and what is built on it: titles from words heard
// surely, the hook title box off with a reason when the title was not, the censor leaving a
// barely heard "profanity" alone unless asked, and the OpenAI engine's per-word scores.
import { describe, expect, it } from "vitest";
import { decideHookTitle, unsureWords } from "../../daemon/render/confidence.js";
import { censorWords, parseWordList } from "../../daemon/render/censor.js";
import { titleFor } from "../../plugins/find-clips/titles.js";
import { markUnsureTitles } from "../../plugins/find-clips/title-confidence.js";
import { toSentences, type Word } from "../../plugins/find-clips/text.js";
import type { Window } from "../../plugins/find-clips/score.js";
import type { Clip } from "../../plugins/find-clips/clip.js";
import { fromVerboseJson } from "../../plugins/transcribe/engines/openai.js";

const words = (text: string, unsure: Record<string, number> = {}): Word[] =>
  text.split(" ").map((t, i) => ({
    text: t,
    start: i * 0.4,
    end: i * 0.4 + 0.3,
    confidence: unsure[t.toLowerCase().replace(/[^a-z']/g, "")] ?? 0.95,
  }));
const windowOf = (ws: Word[]): Window => {
  const sentences = toSentences(ws);
  const last = ws[ws.length - 1]!;
  return { sentences, words: ws, start: 0, end: last.end, pieces: [{ start: 0, end: last.end }], duration: last.end };
};
const TEXT =
  "Most bad sourdough isn't about the recipe at all. " +
  "The timing of the fold matters more than the flour you buy. " +
  "Bakers who wait an extra hour get a better loaf every time.";

describe("word confidence", () => {
  it("finds the words of a text heard below the bar, a word heard surely once counting as heard", () => {
    const ws = [
      { text: "Arrow,", confidence: 0.1 },
      { text: "country", confidence: 0.9 },
      { text: "our", confidence: 0.2 },
      { text: "our", confidence: 0.7 },
    ];
    expect(unsureWords("our arrow country", ws)).toEqual([{ word: "arrow", confidence: 0.1 }]);
    expect(unsureWords("unknown words", ws)).toEqual([]);
    expect(unsureWords("arrow", [{ text: "arrow" }])).toEqual([]);
  });

  it("does not choose a title holding a word heard below 0.5", () => {
    const sure = titleFor(windowOf(words(TEXT)), ["sourdough", "recip"]);
    expect(sure.toLowerCase()).toContain("sourdough");
    const title = titleFor(windowOf(words(TEXT, { sourdough: 0.2 })), ["sourdough", "recip"]);
    expect(title.toLowerCase()).not.toContain("sourdough");
    expect(title.split(" ").length).toBeGreaterThanOrEqual(3);
  });

  it("says among a clip's reasons when its title was heard with low confidence", () => {
    const clip = { ref: "c1", title: "Arrow of my arm", start: 0, end: 3, score: { value: 50, reasons: [] } };
    const [marked] = markUnsureTitles(
      [clip as unknown as Clip],
      words("and then our my arm arrow", { arrow: 0.01 }),
      [],
    );
    expect(marked!.score.reasons.at(-1)).toMatch(/title heard with low confidence \(“arrow” 0\.01\).*hook title box/);
  });

  it("keeps the hook title box off, with a reason, when the title's words were heard below the bar", () => {
    const ws = words("and then our my arm arrow", { arrow: 0.01, our: 0.2 });
    const off = decideHookTitle(true, "Our arm arrow", ws);
    expect(off.text).toBeUndefined();
    expect(off.off).toMatch(/hook title box off: .*“our” 0\.20, “arrow” 0\.01/);
    // Typed words are drawn whatever was heard; a surely heard title is drawn.
    expect(decideHookTitle("My own words", "Our arm arrow", ws)).toEqual({ text: "My own words" });
    expect(decideHookTitle(true, "My arm", ws)).toEqual({ text: "My arm" });
    expect(decideHookTitle(false, "My arm", ws)).toEqual({});
    // The unsure words come with the reason; asked to draw it anyway, the title is drawn as heard.
    expect(off.unsure).toEqual([
      { word: "our", confidence: 0.2 },
      { word: "arrow", confidence: 0.01 },
    ]);
    expect(decideHookTitle(true, "Our arm arrow", ws, undefined, true)).toEqual({ text: "Our arm arrow" });
  });

  it("masks a listed word only when it was heard with confidence, unless asked to mask every one", () => {
    const list = parseWordList("damn\nshit*");
    const ws = [
      { text: "damn", start: 0, end: 0.3, confidence: 0.9 },
      { text: "shitty", start: 0.4, end: 0.7, confidence: 0.2 },
      { text: "damn", start: 0.8, end: 1, confidence: 0.3 },
      { text: "shit", start: 1.1, end: 1.3 },
    ];
    const byDefault = censorWords(ws, list);
    expect(byDefault.words.map((w) => w.text)).toEqual(["d***", "shitty", "damn", "s***"]);
    expect(byDefault.listed).toEqual([0, 3]);
    const all = censorWords(ws, list, { lowConfidence: true });
    expect(all.words.map((w) => w.text)).toEqual(["d***", "s*****", "d***", "s***"]);
  });

  it(
    "takes an OpenAI-compatible server's per-word probability, then token log-probabilities, " + "then the segment's",
    () => {
      const segments = [{ start: 0, end: 2, text: "Hello there", avg_logprob: Math.log(0.8) }];
      const base = [
        { word: "Hello", start: 0, end: 0.5 },
        { word: "there", start: 0.6, end: 1 },
      ];
      expect(fromVerboseJson({ words: base, segments }).words.map((w) => w.confidence)).toEqual([0.8, 0.8]);
      const probs = base.map((w, i) => ({ ...w, probability: [0.3, 0.9][i] }));
      expect(fromVerboseJson({ words: probs, segments }).words.map((w) => w.confidence)).toEqual([0.3, 0.9]);
      const logprobs = [
        { token: " Hel", logprob: Math.log(0.5) },
        { token: "lo", logprob: Math.log(0.7) },
        { token: " there", logprob: Math.log(0.4) },
      ];
      const fromTokens = fromVerboseJson({ words: base, segments, logprobs }).words.map((w) => w.confidence);
      expect(fromTokens[0]).toBeCloseTo(0.6);
      expect(fromTokens[1]).toBeCloseTo(0.4);
    },
  );
});
