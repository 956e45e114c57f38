// Briefs' terms, the passage measure and how answers meet the clips already listed (brief.ts).
import { describe, expect, it } from "vitest";
import { answersTo, bm25, briefTerms, edgeWaste, pickAnswers, withAnswer } from "../../plugins/find-clips/brief.js";
import type { Clip } from "../../plugins/find-clips/heuristic.js";

const words = (text: string) => text.split(" ").map((t, i) => ({ text: t, start: i, end: i + 0.5 }));
const clip = (number: number, start: number, end: number): Clip => ({
  number,
  ref: `c${number}`,
  title: "t",
  hook: "h",
  start,
  end,
  duration: end - start,
  pieces: [{ start, end }],
  score: { value: 50, reasons: [] },
});

describe("brief terms", () => {
  it("drops stop words and talk words, and stems the rest", () => {
    expect(briefTerms("make a way to see how much of the story")).toEqual([]);
    expect(briefTerms("what happened when we talked about pricing")).toEqual(["price"]);
    expect(briefTerms("prices")).toEqual(briefTerms("pricing"));
  });

  it("ranks by BM25 over the terms, not over filler", () => {
    const windows = [
      { words: words("you know we kind of made our way there and saw so much") },
      { words: words("we doubled the price and the prices held") },
    ];
    const [filler, price] = bm25(windows, "the way we made our price");
    expect(filler).toBe(0);
    expect(price).toBeGreaterThan(0);
  });

  it("measures the time a window spends outside the passage that holds the terms", () => {
    const s = (text: string, start: number, end: number) => ({ words: words(text), start, end });
    const w = {
      words: [],
      start: 0,
      end: 40,
      sentences: [
        s("hello there everyone", 0, 10),
        s("the price doubled", 10, 20),
        s("price held", 20, 30),
        s("anyway bye", 30, 40),
      ],
    };
    // 20 s of 40 outside the passage, a fifth of the window free.
    expect(edgeWaste(w, new Set(briefTerms("price")))).toBeCloseTo(0.3);
    expect(edgeWaste(w, new Set(["zebra"]))).toBe(1);
  });
});

describe("answers and listed clips", () => {
  it("answers with a listed clip that holds most of the candidate, then adds new clips after", () => {
    const listed = [clip(1, 0, 40), clip(2, 100, 140)];
    const ranked = [
      { w: { start: 105, end: 135 } },
      { w: { start: 30, end: 60 } },
      { w: { start: 200, end: 240 } },
      { w: { start: 0, end: 38 } },
    ];
    const picked = pickAnswers(ranked, listed, 5);
    // Clip 2 answers first; the grazing candidate is skipped; a new span; clip 1 answers last.
    expect(picked.map((p) => p.existing?.number ?? `new ${p.pick.w.start}`)).toEqual([2, "new 200", 1]);
  });

  it("lists a brief's answers best first, keeping other briefs' marks", () => {
    const a = withAnswer(withAnswer(clip(1, 0, 40), "other", 0), "bread", 1);
    const b = withAnswer(clip(2, 50, 90), "bread", 0);
    expect(a.answers).toEqual([
      { about: "other", rank: 0 },
      { about: "bread", rank: 1 },
    ]);
    expect(answersTo([a, b, clip(3, 100, 130)], "bread").map((c) => c.number)).toEqual([2, 1]);
  });
});
