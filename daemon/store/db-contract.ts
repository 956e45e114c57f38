/**
 * What the app sees of a database, whichever backend holds it (postgres-db.ts, pglite-db.ts):
 * `query` and `transaction`, and the count of writes that kept reads and waits go by.
 */
import type { PGlite } from "@electric-sql/pglite";

export interface Queryable {
  // biome-ignore lint/suspicious/noExplicitAny: driver shim: pg and PGlite type query overloads differently
  query<T = any>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

export interface Db extends Queryable {
  readonly kind: "postgres" | "pglite";
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** The raw handle pg-boss is built on: a connection string, or the PGlite instance. */
  readonly raw: { connectionString?: string; pglite?: PGlite };
  /**
   * Subscribes to NOTIFY on a channel; returns the unsubscribe function. A lost session is opened
   * again; `onGap` is called then, since what was notified meanwhile is gone.
   */
  listen?(
    channel: string,
    onPayload: (payload: string) => void,
    opts?: { onGap?: () => void },
  ): Promise<() => Promise<void>>;
  notify?(channel: string, payload: string): Promise<void>;
  /**
   * A count that grows after every statement that may have changed data has finished: a read taken
   * while it stood still is still true (facade/read-cache.ts). On PGlite this process is the only
   * writer. On PostgreSQL the count also moves on every other process's commit to the tables the
   * kept reads show (pg-changes.ts), and is undefined while those notices cannot be heard.
   */
  writes?(): number | undefined;
  /**
   * Calls `fn` each time that count moves (at once, in the writer's turn: `fn` should only note it).
   * What waits on a row's change (facade/wait-watch.ts) is woken by it instead of reading in a loop.
   */
  onWrites?(fn: () => void): () => void;
  close(): Promise<void>;
}

export class DatabaseError extends Error {
  constructor(message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = "DatabaseError";
  }
}

/** A statement that only reads: a plain select, without row locks. */
const READ_ONLY = /^\s*select\b(?![\s\S]*\bfor\s+(update|share|no\s+key)\b)/i;
/**
 * Writes to tables no kept read shows: the rate limiter's shared counts, flushed a tenth of a second
 * after any request. Counted, they dropped every kept read just after each request, so a client
 * polling an episode never read a kept copy.
 */
const UNSHOWN = /^\s*(insert\s+into|delete\s+from)\s+rate_counters\b/i;
/** Whether a statement leaves the count of writes (`Db.writes`) where it was. */
export const uncounted = (sql: string) => READ_ONLY.test(sql) || UNSHOWN.test(sql);

/** A caller's own writes, run in the transaction of the work they belong to (see transactionWith). */
export type Within<T> = (tx: Queryable, result: T) => Promise<void>;

/**
 * Runs `fn` in a transaction, then `within(tx, result)` in that same transaction: what the caller
 * records about the work (an Idempotency-Key's answer) commits with the work or not at all.
 */
export function transactionWith<T>(db: Db, fn: (tx: Queryable) => Promise<T>, within?: Within<T>): Promise<T> {
  return db.transaction(async (tx) => {
    const result = await fn(tx);
    if (within) await within(tx, result);
    return result;
  });
}
