/**
 * Reads kept while the database stands still. On PGlite this process is the only writer, and the
 * adapter counts every statement that may have changed data (`Db.writes`): a read taken at count n
 * is exactly as true as a fresh one for as long as the count is still n. The hot API read (an
 * episode polled by its client) then skips the embedded database, which answers one query in about
 * a millisecond. On PostgreSQL other processes write too: there the count also moves on every
 * notice of another process's commit (daemon/store/pg-changes.ts, migration 022), and while those
 * notices cannot be heard there is no count and nothing is kept. The one staleness left is across
 * processes, for as long as a notice takes to arrive (about a millisecond on one network). Reads
 * of one key at one count share one query (several pollers, one miss).
 *
 * A kept value is handed to every caller: callers must not change it.
 */
import type { Db } from "../daemon/store/db.js";

/** Entries kept at most; past it the cache starts over (one entry per polled episode). */
const MAX_ENTRIES = 5000;

interface Entry {
  at: number;
  value: Promise<unknown>;
}

export class ReadCache {
  private entries = new Map<string, Entry>();

  constructor(private readonly db: Pick<Db, "writes">) {}

  read<T>(key: string, load: () => Promise<T>): Promise<T> {
    const count = this.db.writes?.();
    if (count === undefined) return load();
    const hit = this.entries.get(key);
    if (hit && hit.at === count) return hit.value as Promise<T>;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const value = load();
    this.entries.set(key, { at: count, value });
    // A failed read is not kept: the next caller asks again.
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }
}

const caches = new WeakMap<object, ReadCache>();

/** The one cache of a database handle (one per process and database). */
export function readCacheOf(db: Pick<Db, "writes">): ReadCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new ReadCache(db)));
  return cache;
}
