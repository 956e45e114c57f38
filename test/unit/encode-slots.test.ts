// render.concurrency: encodes beyond the slots wait their turn in order; an abort while waiting
// leaves the queue; raising the limit starts the waiting ones.
import { describe, expect, it } from "vitest";
import {
  defaultRenderConcurrency,
  encodeSlotsState,
  setRenderConcurrency,
  takeEncodeSlot,
} from "../../daemon/render/encode-slots.js";

describe("encode slots", () => {
  it("one slot: the second and third encodes start in order as each one ends", async () => {
    setRenderConcurrency(1);
    const started: number[] = [];
    const first = await takeEncodeSlot();
    const second = takeEncodeSlot().then((r) => (started.push(2), r));
    const third = takeEncodeSlot().then((r) => (started.push(3), r));
    expect(encodeSlotsState()).toEqual({ slots: 1, busy: 1, waiting: 2 });
    first();
    first(); // a second release of the same slot changes nothing
    const r2 = await second;
    expect(started).toEqual([2]);
    expect(encodeSlotsState()).toEqual({ slots: 1, busy: 1, waiting: 1 });
    r2();
    (await third)();
    expect(started).toEqual([2, 3]);
    expect(encodeSlotsState()).toEqual({ slots: 1, busy: 0, waiting: 0 });
  });

  it("an abort while waiting rejects with the reason and frees its place", async () => {
    setRenderConcurrency(1);
    const held = await takeEncodeSlot();
    const ac = new AbortController();
    const waiting = takeEncodeSlot(ac.signal);
    ac.abort(new Error("step timed out"));
    await expect(waiting).rejects.toThrow("step timed out");
    expect(encodeSlotsState()).toEqual({ slots: 1, busy: 1, waiting: 0 });
    held();
    await expect(takeEncodeSlot(ac.signal)).rejects.toThrow("step timed out");
  });

  it("raising the limit starts waiting encodes at once", async () => {
    setRenderConcurrency(1);
    const a = await takeEncodeSlot();
    const b = takeEncodeSlot();
    setRenderConcurrency(2);
    (await b)();
    a();
    expect(encodeSlotsState()).toEqual({ slots: 2, busy: 0, waiting: 0 });
  });

  it("defaults to one encode per 4 cores, at least one", () => {
    expect([1, 2, 3, 4, 8, 16].map(defaultRenderConcurrency)).toEqual([1, 1, 1, 1, 2, 4]);
  });
});
