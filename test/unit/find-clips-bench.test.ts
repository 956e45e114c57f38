// The labelled set behind bench/find-clips: the metrics are right, and the heuristic keeps its level.
import { describe, expect, it } from "vitest";
import { loadLabelled, runOne, scoreClips, splitSet, total } from "../../bench/find-clips.js";

describe("find-clips labelled set", () => {
  it("scores hit rate and precision@5 by half-overlaps", () => {
    const labels = [
      { start: 10, end: 50 },
      { start: 100, end: 140 },
    ];
    // Covers 30 of label 1's 40 s (a hit, and 75% of the clip is good); the other misses both.
    const s = scoreClips(
      [
        { start: 20, end: 60 },
        { start: 60, end: 110 },
      ],
      labels,
    );
    expect(s).toMatchObject({ labels: 2, hits: 1, clips: 2, good: 1 });
  });

  it("has well-formed fixtures: labels on word times, words in order", () => {
    const set = loadLabelled();
    expect(set.length).toBeGreaterThanOrEqual(4);
    for (const t of set) {
      expect(t.labels.length).toBeGreaterThan(0);
      for (let i = 1; i < t.words.length; i++) expect(t.words[i].start).toBeGreaterThanOrEqual(t.words[i - 1].end);
      for (const l of t.labels) {
        expect(t.words.some((w) => w.start === l.start)).toBe(true);
        expect(t.words.some((w) => w.end === l.end)).toBe(true);
      }
    }
  });

  it("finds most labelled moments in its top five (tuning half; measured 0.98, at 60 s 0.98 and 0.59)", () => {
    const set = splitSet(loadLabelled()).tune;
    const all = total(set.map((t) => runOne(t, {}).score));
    expect(all.hits / all.labels).toBeGreaterThanOrEqual(0.9);
    const target = total(set.map((t) => runOne(t, { target_seconds: 60 }).score));
    expect(target.hits / target.labels).toBeGreaterThanOrEqual(0.9);
    expect(target.good / target.clips).toBeGreaterThanOrEqual(0.52);
  });
});
