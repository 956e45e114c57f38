// A brief in other words than its passage's: the thesaurus (WordNet, words/thesaurus.txt) relates a
// brief's word to the speaker's synonym or more general word, where the word vectors rank looser
// neighbours first.
import { describe, expect, it } from "vitest";
import { briefScorer } from "../../plugins/find-clips/brief.js";
import { parseThesaurus, relatedWords, thesaurus } from "../../plugins/find-clips/thesaurus.js";

describe("the thesaurus behind briefs", () => {
  it("parses a line per word and keeps the related words as they were written", () => {
    const t = parseThesaurus("bequest\tlegacy\npardon\tforgive forgiveness\n");
    expect(t.get("pardon")).toBe("forgive forgiveness");
    expect(t.get("bequest")).toBe("legacy");
    expect(t.get("legacy")).toBeUndefined();
  });

  it("ships related words for a word and for its base forms", () => {
    expect(thesaurus()?.size).toBeGreaterThan(50_000);
    expect(relatedWords("pardoning")).toContain("forgiveness");
    expect(relatedWords("devours")).toContain("eat");
    expect(relatedWords("bequest")).toContain("legacy");
    expect(relatedWords("zzzqx").size).toBe(0);
  });

  it("lets a paraphrased brief find the passage that says it in its own words", () => {
    const passage = (start: number, text: string) => {
      const words = text.split(" ").map((t, i) => ({ text: t, start: start + i * 0.4, end: start + i * 0.4 + 0.3 }));
      const s = { words, start, end: start + 30, text, index: start };
      return { words, sentences: [s], start, end: start + 30 };
    };
    const windows = [
      passage(0, "The harbour froze that winter and the ferries stopped running for a month."),
      passage(60, "Her grandmother left the cottage as a legacy to the village school."),
      passage(120, "We rebuilt the chapel roof with slate from the old quarry."),
    ];
    const score = briefScorer(windows, "the bequest to the schoolchildren", 180);
    const values = windows.map((_, i) => score(i, 0.5));
    expect(values[1]!.relevant).toBe(true);
    expect(values[1]!.value).toBeGreaterThan(Math.max(values[0]!.value, values[2]!.value));
  });
});
