// How the transcribe stage splits audio (as many chunks as cores, a floor, cuts in silences) and
// how its progress moves over the chunks (by length, never backwards, with a time-left estimate).
import { describe, expect, it } from "vitest";
import { chunkCount, planTranscribeChunks } from "../../plugins/transcribe/_chunks.js";
import { chunkProgress } from "../../plugins/transcribe/_progress.js";
import { etaText } from "../../daemon/cli/output.js";
import { etaSeconds } from "../../daemon/engine/progress.js";

const o = (concurrency: number, target = 300, min_seconds = 15) => ({ concurrency, target, min_seconds });

describe("chunk count", () => {
  it("gives every core a chunk whatever the length, above the floor", () => {
    expect(chunkCount(360, o(2))).toBe(2); // the 6-minute recording of issue 17: was one chunk
    expect(chunkCount(45, o(2))).toBe(2);
    expect(chunkCount(45, o(4))).toBe(3); // the floor: no chunk under 15 s
    expect(chunkCount(11, o(2))).toBe(1); // jfk.wav stays whole
    expect(chunkCount(360, o(16))).toBe(16);
    expect(chunkCount(0, o(2))).toBe(0);
  });

  it("never runs a chunk past the target, and rounds up to whole waves of chunks", () => {
    expect(chunkCount(1500, o(2))).toBe(6); // 5 by length, 6 so the last wave is not one chunk alone
    expect(chunkCount(1500, o(1))).toBe(5);
    expect(chunkCount(100, o(1, 20, 60))).toBe(5); // the target wins over the floor
  });
});

describe("chunk cuts", () => {
  it("cuts in the silence nearest each even share, preferring long ones, else at the even point", () => {
    const silences = [
      { start: 55, end: 55.4 },
      { start: 61, end: 62.5 }, // long and near 60
      { start: 118, end: 118.3 },
    ];
    const chunks = planTranscribeChunks(180, silences, o(3, 300, 15));
    expect(chunks.map((c) => Math.round(c.end * 100) / 100)).toEqual([61.75, 118.15, 180]);
    expect(chunks[0]!.start).toBe(0);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.start).toBe(chunks[i - 1]!.end);
    expect(planTranscribeChunks(60, [], o(2))).toEqual([
      { start: 0, end: 30 },
      { start: 30, end: 60 },
    ]);
  });
});

describe("chunk progress", () => {
  it("moves with each chunk's own reports, weighted by length, never backwards, with a time left", () => {
    let now = 0;
    const seen: Array<{ pct: number; note: string; eta?: number }> = [];
    const p = chunkProgress(
      [
        { start: 0, end: 30 },
        { start: 30, end: 90 },
      ],
      (pct, note, eta) => void seen.push({ pct, note, eta }),
      { from: 10, to: 90 },
      () => now,
    );
    p.started(0);
    p.started(1);
    now = 5_000;
    p.reached(0, 15);
    expect(seen.at(-1)!.pct).toBeCloseTo(10 + (80 * 15) / 90, 1);
    expect(seen.at(-1)!.eta).toBeCloseTo(75 / 3, 5); // 15 s of audio in 5 s: 75 s left at 3× real time
    p.reached(0, 10); // an engine report that goes back is ignored
    expect(seen.at(-1)!.pct).toBeCloseTo(10 + (80 * 15) / 90, 1);
    now = 10_000;
    p.done(0);
    p.reached(1, 60);
    p.done(1);
    expect(seen.at(-1)).toMatchObject({ pct: 90, note: expect.stringContaining("2 of 2 chunks done") });
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.pct).toBeGreaterThanOrEqual(seen[i - 1]!.pct);
  });

  it("estimates a chunk whose engine reports nothing from the chunks already done, held under 90%", () => {
    let now = 0;
    const seen: number[] = [];
    const p = chunkProgress(
      [
        { start: 0, end: 10 },
        { start: 10, end: 20 },
      ],
      (pct) => void seen.push(pct),
      { from: 0, to: 100 },
      () => now,
    );
    p.started(0);
    now = 2_000;
    p.done(0); // 10 s of audio in 2 s
    p.started(1);
    now = 3_000;
    p.tick();
    expect(seen.at(-1)).toBeCloseTo(75, 1); // half of the second chunk after half its expected time
    now = 60_000;
    p.tick();
    expect(seen.at(-1)).toBeCloseTo(95, 1); // held at 90% of the chunk until it ends
  });
});

describe("time left as shown", () => {
  it("counts down from eta_at and is shown only while running", () => {
    const at = new Date(100_000).toISOString();
    expect(etaSeconds({ state: "running", eta_at: at }, 40_000)).toBe(60);
    expect(etaSeconds({ state: "running", eta_at: at }, 200_000)).toBe(0);
    expect(etaSeconds({ state: "succeeded", eta_at: at }, 40_000)).toBeNull();
    expect(etaSeconds({ state: "running", eta_at: null })).toBeNull();
    expect(etaText(65)).toBe(", 1m05s left");
    expect(etaText(40)).toBe(", 40s left");
    expect(etaText(null)).toBe("");
  });
});
