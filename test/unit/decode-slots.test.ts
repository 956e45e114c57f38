// Decoder slots go round the accounts (issue 36): one account's queue of slow files does not hold
// up another's small one, a newcomer starts beside a busy owner, and an owner's backlog is bounded.
import { describe, expect, it } from "vitest";
import { LimitReached } from "../../daemon/domain/errors.js";
import { FairSlots, MAX_WAITING } from "../../daemon/render/decode-slots.js";

/** Takes a slot and records the order in which owners got theirs. */
function taker(slots: FairSlots, order: string[]) {
  return (owner: string) =>
    slots.acquire(owner, "logo").then((release) => {
      order.push(owner);
      return release;
    });
}

describe("FairSlots", () => {
  it("starts a newcomer at once in the reserve while one owner fills the regular slot", async () => {
    const slots = new FairSlots(1);
    const order: string[] = [];
    const take = taker(slots, order);
    const first = await take("a");
    const queued = [take("a"), take("a"), take("a")];
    const b = await take("b");
    expect(order).toEqual(["a", "b"]);
    expect(slots.snapshot()).toEqual({ running: 2, waiting: { a: 3 } });
    b();
    first();
    await queued[0];
    expect(order).toEqual(["a", "b", "a"]);
  });

  it("gives a freed slot to the owners in turn, not to the one that queued most", async () => {
    const slots = new FairSlots(1, 0);
    const order: string[] = [];
    const holders: Array<() => void> = [];
    const take = (owner: string) =>
      void slots.acquire(owner, "logo").then((release) => {
        order.push(owner);
        holders.push(release);
      });
    for (const owner of ["a", "a", "a", "b", "a", "c", "b"]) take(owner);
    const settle = () => new Promise((r) => setImmediate(r));
    await settle();
    while (holders.length) {
      holders.shift()!();
      await settle();
    }
    expect(order).toEqual(["a", "b", "c", "a", "b", "a", "a"]);
  });

  it("refuses an owner's file past MAX_WAITING, naming the limit, and keeps the others", async () => {
    const slots = new FairSlots(1, 0);
    await slots.acquire("a", "logo");
    const waiting = Array.from({ length: MAX_WAITING }, () => slots.acquire("a", "logo"));
    const err = await slots.acquire("a", "logo").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LimitReached);
    expect((err as LimitReached).context).toMatchObject({ field: "logo", limit: "decodes_waiting", max: MAX_WAITING });
    expect(slots.snapshot().waiting).toEqual({ a: MAX_WAITING });
    void waiting;
  });
});
