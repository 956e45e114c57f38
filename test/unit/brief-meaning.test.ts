// Briefs by meaning (meaning.ts, vectors.ts, brief.ts): the shipped word vectors load and say that
// near words are near; a brief in other words than the passage's finds it; a brief that shares only
// a generic word with the show's intro gets no answer rather than the intro.
import { describe, expect, it } from "vitest";
import { briefScorer, briefTerms } from "../../plugins/find-clips/brief.js";
import { contentTerms, isGeneric, softCounts } from "../../plugins/find-clips/meaning.js";
import { dot, parseWordVectors, wordVectors } from "../../plugins/find-clips/vectors.js";

const words = (text: string, from = 0) =>
  text.split(" ").map((t, i) => ({ text: t, start: from + i * 0.4, end: from + i * 0.4 + 0.3 }));
/** A window of one sentence per text, each 10 s long. */
const windowOf = (texts: string[], from: number) => {
  const sentences = texts.map((t, i) => ({
    words: words(t, from + i * 10),
    start: from + i * 10,
    end: from + i * 10 + 9,
  }));
  return { sentences, words: sentences.flatMap((s) => s.words), start: from, end: from + texts.length * 10 };
};

describe("word vectors", () => {
  it("loads the shipped file once and puts near words near", () => {
    const v = wordVectors();
    expect(v).not.toBeNull();
    expect(v!.dims).toBe(100);
    expect(wordVectors()).toBe(v);
    const cos = (a: string, b: string) => dot(v!.get(a)!, v!.get(b)!);
    expect(cos("eatery", "restaurant")).toBeGreaterThan(0.6);
    expect(cos("eatery", "restaurant")).toBeGreaterThan(cos("eatery", "wolves") + 0.4);
    expect(v!.rank("the")).toBeLessThan(v!.rank("sourdough")!);
    expect(v!.get("zzzqqq")).toBeUndefined();
  });

  it("refuses a file of another format", () => {
    expect(() => parseWordVectors(Buffer.from("not a vector file at all"))).toThrow(/CLPDWV01/);
  });
});

describe("briefs by meaning", () => {
  it("drops generic words from a brief, lexically and by meaning", () => {
    expect(isGeneric("show")).toBe(true);
    expect(briefTerms("how the show started today, the plan")).toEqual([]);
    expect(contentTerms("whose idea was the sourdough").map((t) => t.word)).toEqual(["sourdough"]);
  });

  it("counts a word of near meaning as part of a brief word, less than the word itself", () => {
    const soft = softCounts("eatery", ["the restaurant closed", "the eatery closed", "wolves hunt deer"]);
    const [near, same, none] = soft.counts.map((row) => row[0]!);
    expect(same).toBe(1);
    expect(near).toBeGreaterThan(0.1);
    expect(near).toBeLessThan(1);
    expect(none).toBe(0);
  });

  it("finds a passage said in other words than the brief's", () => {
    const windows = [
      windowOf(["wolves hunt deer across the hills in winter", "the pack moves the herd along the valley"], 0),
      windowOf(["our restaurant closed after the quiet midweek months", "diners stopped coming on tuesdays"], 100),
      windowOf(["the tide came in over the harbour wall", "boats were tied up for the storm"], 200),
    ];
    const score = briefScorer(windows, "why an eatery went under");
    const s = windows.map((_, i) => score(i, 0.5));
    expect(s[1]!.relevant).toBe(true);
    expect(s[1]!.value).toBeGreaterThan(s[0]!.value);
    expect(s[1]!.value).toBeGreaterThan(s[2]!.value);
    expect(s[1]!.reason).toMatch(/matches the brief/);
  });

  it("answers nothing rather than the intro when the brief shares only generic words with it", () => {
    const windows = [
      windowOf(
        ["welcome to the show everyone today we start with a plan", "this show is for people who start things"],
        0,
      ),
      windowOf(["bees sting less when the hive is calm", "smoke masks the alarm scent of the guards"], 100),
    ];
    const score = briefScorer(windows, "how the show got started and the plan for today");
    expect(windows.map((_, i) => score(i, 0.6).relevant)).toEqual([false, false]);
  });
});
