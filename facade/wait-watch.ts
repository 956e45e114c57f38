/**
 * What the wait tools (wait_for_job, wait_for_episode) stand on: waits that wake on a change instead
 * of each reading in a loop, and a bound on how many one key may hold.
 *
 * One watch per watched thing (a job or an episode, as one account and link origin see it) reads it
 * for every wait on it. A watch reads when the database's count of writes moves (`Db.onWrites`: this
 * process's writes on PGlite, and on PostgreSQL also every other process's commits to episodes, clips
 * and runs), at most every MIN_GAP_MS, and not at all while nothing changes; every wait on it is
 * handed the same answer. Where no change can be heard (PostgreSQL's LISTEN session down, or a
 * database without the count) a watch reads every BLIND_EVERY_MS instead, still once for all its waits.
 *
 * The bound is per process: several processes serving /mcp each allow MAX_WAITS_PER_KEY.
 */
import type { Db } from "../daemon/store/db.js";
import { ApiError } from "./errors.js";

/** Waits one key may hold at once. */
export const MAX_WAITS_PER_KEY = 10;
/** The shortest time between two reads of one watched thing while the database keeps changing, ms. */
const MIN_GAP_MS = 250;
/** How often a watched thing is read while no change can be heard, ms. */
const BLIND_EVERY_MS = 2000;

/** One read's outcome, as every wait on the thing sees it. */
export type Seen<T> = { ok: true; value: T } | { ok: false; error: unknown };

interface Follower<T> {
  read: () => Promise<T>;
  see: (s: Seen<T>) => void;
}

type WatchedDb = Pick<Db, "writes" | "onWrites">;

class Watch<T> {
  readonly followers = new Set<Follower<T>>();
  private last?: { at: number | undefined; seen: Seen<T> };
  private dirty = true;
  private reading = false;
  private lastReadAt = 0;
  private timer?: NodeJS.Timeout;

  constructor(private readonly db: WatchedDb) {}

  add(f: Follower<T>): void {
    this.followers.add(f);
    const at = this.db.writes?.();
    // A read taken at the count that still stands is as true as a new one.
    if (this.last && at !== undefined && this.last.at === at) f.see(this.last.seen);
    else this.changed();
  }

  /** The database may have changed: read again (soon, and once for all). */
  changed(): void {
    this.dirty = true;
    if (this.reading || this.timer) return;
    this.timer = setTimeout(() => void this.read(), Math.max(0, this.lastReadAt + MIN_GAP_MS - Date.now()));
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async read(): Promise<void> {
    this.timer = undefined;
    const first = this.followers.values().next().value;
    if (!first || !this.dirty) return;
    this.dirty = false;
    this.reading = true;
    this.lastReadAt = Date.now();
    // The count before the read: a write that lands while it runs marks the watch dirty again.
    const at = this.db.writes?.();
    let seen: Seen<T>;
    try {
      seen = { ok: true, value: await first.read() };
    } catch (error) {
      seen = { ok: false, error };
    }
    this.reading = false;
    this.last = { at, seen };
    for (const f of [...this.followers]) f.see(seen);
    if (!this.followers.size) return;
    if (at === undefined || !this.db.onWrites) {
      // Blind: nothing will say when it changes, so look again after a while.
      this.dirty = true;
      this.timer = setTimeout(() => void this.read(), BLIND_EVERY_MS);
    } else if (this.dirty) this.changed();
  }
}

export class WaitWatch {
  private readonly watches = new Map<string, Watch<unknown>>();
  private readonly held = new Map<string, number>();
  private off?: () => void;

  constructor(private readonly db: WatchedDb) {}

  /** Waits that key `keyId` holds now. */
  holding(keyId: string): number {
    return this.held.get(keyId) ?? 0;
  }

  /**
   * Counts one wait against `keyId` and returns its release; past MAX_WAITS_PER_KEY the wait is
   * refused with 429 too_many_waits, before anything is read.
   */
  hold(keyId: string): () => void {
    const n = this.holding(keyId);
    if (n >= MAX_WAITS_PER_KEY)
      throw new ApiError(
        429,
        "too_many_waits",
        `this key already holds ${n} waits, the most one key may hold at once (${MAX_WAITS_PER_KEY}); ` +
          "let one of them end first, or read the state without waiting",
        { limit: MAX_WAITS_PER_KEY, retry_after: 1 },
      );
    this.held.set(keyId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.holding(keyId) - 1;
      if (left > 0) this.held.set(keyId, left);
      else this.held.delete(keyId);
    };
  }

  /**
   * Hands `see` each read of the thing named `key` (made by `read`, or by another wait's read of the
   * same key) until the returned function is called.
   */
  follow<T>(key: string, read: () => Promise<T>, see: (s: Seen<T>) => void): () => void {
    let watch = this.watches.get(key) as Watch<T> | undefined;
    if (!watch) {
      watch = new Watch<T>(this.db);
      this.watches.set(key, watch as Watch<unknown>);
      this.off ??= this.db.onWrites?.(() => {
        for (const w of this.watches.values()) w.changed();
      });
    }
    const f: Follower<T> = { read, see };
    watch.add(f);
    const w = watch;
    return () => {
      w.followers.delete(f);
      if (w.followers.size) return;
      w.stop();
      if (this.watches.get(key) === w) this.watches.delete(key);
      if (!this.watches.size) {
        this.off?.();
        this.off = undefined;
      }
    };
  }
}

const hubs = new WeakMap<object, WaitWatch>();

/** The one WaitWatch of a database handle (one per process and database). */
export function waitWatchOf(db: WatchedDb): WaitWatch {
  let hub = hubs.get(db);
  if (!hub) hubs.set(db, (hub = new WaitWatch(db)));
  return hub;
}
