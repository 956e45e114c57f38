/**
 * Who decodes next (issue 36). Decoding is one child at a time on two cores, up to 30 s of wall time
 * a file; in one first-come queue, four slow files from one account kept another account's
 * 64×64 logo waiting two minutes. Here each owner (an account; the render stages share one) has a
 * queue of its own, and a freed slot goes to the waiting owner served longest ago (round the owners
 * in turn). One more slot is kept for an
 * owner with nothing running, so a newcomer starts at once beside whatever a busy owner is
 * decoding: the children run niced, and a small file is done in well under a second. An owner
 * holds at most all but one regular slot where there are several, and may have only MAX_WAITING
 * files waiting: past that the next is refused at once, naming the limit.
 */
import { LimitReached } from "../domain/errors.js";

export const MAX_WAITING = 8;

interface Waiter {
  start: (release: () => void) => void;
}

interface Owner {
  running: number;
  queue: Waiter[];
  /** When it last got a slot (0: never) and when it first came: the freed slot goes to the longest unserved. */
  served: number;
  arrived: number;
}

export class FairSlots {
  private readonly owners = new Map<string, Owner>();
  private clock = 0;
  private regularInUse = 0;
  private reserveInUse = 0;
  private readonly perOwner: number;

  constructor(
    readonly regular: number,
    readonly reserve = 1,
  ) {
    this.perOwner = Math.max(1, regular - 1);
  }

  /** Waits for a slot for `owner`; the function it resolves with gives the slot back. */
  async acquire(owner: string, field: string): Promise<() => void> {
    const o = this.ownerOf(owner);
    const lane = this.laneFor(o);
    if (lane && o.queue.length === 0) return this.take(owner, o, lane);
    if (o.queue.length >= MAX_WAITING)
      throw new LimitReached(
        "quota",
        "too_many_decodes",
        `${field}: ${MAX_WAITING} files of this account are already waiting to be checked; ` +
          "send this one when they are done",
        { context: { field, limit: "decodes_waiting", max: MAX_WAITING } },
      );
    return new Promise((resolve) => {
      o.queue.push({ start: resolve });
    });
  }

  /** Which slot an owner could start in now, if any. */
  private laneFor(o: Owner): "regular" | "reserve" | undefined {
    if (this.regularInUse < this.regular && o.running < this.perOwner) return "regular";
    if (this.reserveInUse < this.reserve && o.running === 0) return "reserve";
    return undefined;
  }

  private take(name: string, o: Owner, lane: "regular" | "reserve"): () => void {
    o.served = ++this.clock;
    o.running++;
    if (lane === "regular") this.regularInUse++;
    else this.reserveInUse++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      o.running--;
      if (lane === "regular") this.regularInUse--;
      else this.reserveInUse--;
      this.forget(name, o);
      this.next();
    };
  }

  /** Starts waiting files, each freed slot to the waiting owner served longest ago. */
  private next(): void {
    for (;;) {
      let pick: [string, Owner, "regular" | "reserve"] | undefined;
      for (const [name, o] of this.owners) {
        const lane = o.queue.length ? this.laneFor(o) : undefined;
        if (!lane) continue;
        const [, p] = pick ?? [];
        if (!p || o.served < p.served || (o.served === p.served && o.arrived < p.arrived)) pick = [name, o, lane];
      }
      if (!pick) return;
      const [name, o, lane] = pick;
      // Taken here, not when the waiter wakes, so the next pick sees the slot as used.
      o.queue.shift()!.start(this.take(name, o, lane));
    }
  }

  private ownerOf(name: string): Owner {
    let o = this.owners.get(name);
    if (!o) {
      o = { running: 0, queue: [], served: 0, arrived: ++this.clock };
      this.owners.set(name, o);
    }
    return o;
  }

  private forget(name: string, o: Owner): void {
    if (o.running > 0 || o.queue.length > 0) return;
    this.owners.delete(name);
  }

  /** For tests and /metrics: slots in use and files waiting, by owner. */
  snapshot(): { running: number; waiting: Record<string, number> } {
    const waiting: Record<string, number> = {};
    for (const [name, o] of this.owners) if (o.queue.length) waiting[name] = o.queue.length;
    return { running: this.regularInUse + this.reserveInUse, waiting };
  }
}
