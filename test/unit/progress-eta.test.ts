// A step that gives no estimate of its own gets one from its pace (rateEta in daemon/engine/progress.ts):
// a render 25% done after 30 s has about 90 s left; too early to say is null, not a guess.
import { describe, expect, it } from "vitest";
import { rateEta } from "../../daemon/engine/progress.js";

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
