// A step that gives no estimate of its own gets one from its pace (rateEta in daemon/engine/progress.ts):
// a render 25% done after 30 s has about 90 s left; too early to say is null, not a guess.
import { describe, expect, it } from "vitest";
import { ETA_SETTLE_MS, etaSmoother, rateEta } from "../../daemon/engine/progress.js";

describe("rateEta", () => {
  it("projects the time left from the pace so far", () => {
    expect(rateEta(30_000, 25)).toBe(90);
    expect(rateEta(10_000, 50)).toBe(10);
    expect(rateEta(60_000, 99)).toBe(1);
  });
  it("says nothing before the pace means anything, or once the step is done", () => {
    expect(rateEta(500, 40)).toBeNull();
    expect(rateEta(60_000, 1)).toBeNull();
    expect(rateEta(60_000, 100)).toBeNull();
  });
});

// The estimate a step shows is smoothed (etaSmoother): issue 36 saw 31 s, then 1013 s within 26 s,
// while about 165 s remained. Scripted here as such a step: a fast first phase (decoding, 8% in
// 3 s), then half a minute of no progress (chunks in flight), then a steady pace to the end at 195 s.
describe("etaSmoother", () => {
  const ENDS_AT = 195;
  const pctAt = (t: number) => (t <= 3 ? 1 + (7 * t) / 3 : t <= 30 ? 8 : 8 + (92 * (t - 30)) / (ENDS_AT - 30));
  const shownOver = () => {
    const shown = etaSmoother();
    const out: Array<{ t: number; eta: number | undefined; raw: number | null }> = [];
    for (let t = 0.5; t < ENDS_AT; t += 0.5) {
      const raw = rateEta(t * 1000, pctAt(t));
      out.push({ t, raw, eta: shown(t * 1000, t * 1000, raw ?? undefined) });
    }
    return out;
  };

  it("shows nothing before the step has run a while", () => {
    const early = shownOver().filter((x) => x.t * 1000 < ETA_SETTLE_MS);
    expect(early.every((x) => x.eta === undefined)).toBe(true);
  });

  it("never more than doubles, nor halves, within ten seconds, where the raw estimate leaps", () => {
    const all = shownOver().filter((x) => x.eta !== undefined);
    const raws = all.map((x) => x.raw!);
    // The raw pace-based estimate does leap (what was shown before): ten times over within 30 s.
    expect(Math.max(...raws.slice(0, 50)) / raws[0]!).toBeGreaterThan(5);
    for (let i = 0; i < all.length; i++)
      for (let j = i + 1; j < all.length && all[j]!.t - all[i]!.t <= 10; j++) {
        const [a, b] = [all[i]!, all[j]!];
        const passed = b.t - a.t;
        expect(b.eta!, `${a.t} s: ${a.eta} → ${b.t} s: ${b.eta}`).toBeLessThanOrEqual(a.eta! * 2 + passed + 1e-9);
        expect(b.eta!, `${a.t} s: ${a.eta} → ${b.t} s: ${b.eta}`).toBeGreaterThanOrEqual((a.eta! - passed) / 2 - 1e-9);
      }
  });

  it("comes to the truth once the pace is steady, and counts down without new estimates", () => {
    const at = (t: number) => shownOver().find((x) => x.t === t)!.eta!;
    for (const t of [120, 150, 180]) expect(Math.abs(at(t) - (ENDS_AT - t))).toBeLessThan(0.3 * (ENDS_AT - t) + 5);
    const shown = etaSmoother();
    shown(6000, 6000, 60);
    expect(shown(16_000, 16_000, undefined)).toBeCloseTo(50, 5);
  });
});
