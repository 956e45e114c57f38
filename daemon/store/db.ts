/**
 * One small database adapter for both backends: a PostgreSQL server (DATABASE_URL, pg.Pool) and
 * the embedded PGlite kept in the data folder. Everything the app does goes through `query` and
 * `transaction`. PGlite has one connection, so its transactions go through `pglite.transaction()`,
 * which holds that connection exclusively; a BEGIN sent as a plain query would let pg-boss's own
 * statements slip inside it.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import type { PGlite } from "@electric-sql/pglite";
import { PgChanges } from "./pg-changes.js";
import { unreachableOr } from "./unreachable.js";

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

export async function openPostgres(connectionString: string, opts: { max?: number } = {}): Promise<Db> {
  // A connect that gets no answer (server hung, packets dropped) fails after 10 s instead of holding
  // a pool slot for ever; keepAlive finds a peer that vanished without a reset.
  const pool = new pg.Pool({
    connectionString,
    max: opts.max ?? 10,
    application_name: "clipd",
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
  });
  pool.on("error", () => {}); // idle client errors surface on the next query instead of crashing
  try {
    await pool.query("select 1");
  } catch (err) {
    await pool.end().catch(() => {});
    throw new DatabaseError(`cannot connect to PostgreSQL (DATABASE_URL): ${(err as Error).message}`, { cause: err });
  }
  // Parameterised statements are prepared once per connection and reused by name: the hot API
  // reads then skip parsing and planning. Statements without parameters (DDL, scripts) go as is.
  const names = new Map<string, string>();
  const named = (sql: string, params?: unknown[]) => {
    if (!params?.length) return sql;
    let name = names.get(sql);
    if (!name) {
      name = `clipd_${createHash("sha1").update(sql).digest("hex").slice(0, 20)}`;
      names.set(sql, name);
    }
    // biome-ignore lint/suspicious/noExplicitAny: driver shim: pg and PGlite type query overloads differently
    return { name, text: sql, values: params as any[] };
  };
  const changes = new PgChanges((channel, onPayload, o) =>
    listenWithRetry(connectionString, channel, onPayload, o.onGap, o.onDown),
  );
  const send = (sql: string, params?: unknown[]) =>
    // biome-ignore lint/suspicious/noExplicitAny: driver shim: pg and PGlite type query overloads differently
    params?.length ? pool.query(named(sql, params) as any) : pool.query(sql);
  return {
    kind: "postgres",
    raw: { connectionString },
    // A lost database reads as 503 database_unavailable at the API (unreachable.ts), not 500.
    query: (sql, params) =>
      (uncounted(sql) ? send(sql, params) : send(sql, params).finally(() => changes.wrote())).catch(
        (err: unknown) => Promise.reject(unreachableOr(err)),
        // biome-ignore lint/suspicious/noExplicitAny: driver shim: pg and PGlite type query overloads differently
      ) as any,
    async transaction(fn) {
      const client = await pool.connect().catch((err: unknown) => Promise.reject(unreachableOr(err)));
      // A checked-out client has no listener of the pool's: a connection lost between two of our
      // statements would emit 'error' unheard and end the process. The next statement fails instead.
      const unheard = () => {};
      client.on("error", unheard);
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        const result = await fn({
          // biome-ignore lint/suspicious/noExplicitAny: driver shim: pg and PGlite type query overloads differently
          query: (sql, params) => (params?.length ? client.query(named(sql, params) as any) : client.query(sql)) as any,
        });
        await client.query("COMMIT");
        return result;
      } catch (err) {
        // A client whose ROLLBACK fails is broken: release(err) closes it rather than pooling it.
        await client.query("ROLLBACK").catch((e: Error) => (broken = e));
        throw unreachableOr(err);
      } finally {
        client.off("error", unheard);
        client.release(broken);
        changes.wrote(); // after COMMIT: a read begun now sees what it wrote
      }
    },
    listen: (channel, onPayload, opts) => listenWithRetry(connectionString, channel, onPayload, opts?.onGap),
    async notify(channel, payload) {
      await pool.query("select pg_notify($1, $2)", [channel, payload]);
    },
    writes: () => changes.current(),
    onWrites: (fn) => changes.onMove(fn),
    async close() {
      await changes.close();
      await pool.end();
    },
  };
}

/**
 * LISTEN needs a session of its own, outside the pool. When it is lost (server restarted, network
 * cut) it is opened again, 0.5 s then up to 30 s apart, for as long as the subscription stands.
 */
async function listenWithRetry(
  connectionString: string,
  channel: string,
  onPayload: (payload: string) => void,
  onGap?: () => void,
  onDown?: () => void,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let delay = 500;
  const open = async () => {
    const c = new pg.Client({
      connectionString,
      application_name: "clipd-listen",
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
    });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (client === c && !stopped) onDown?.();
      c.end().catch(() => {});
      if (client === c) client = undefined;
      if (!stopped) timer = setTimeout(reopen, delay);
      delay = Math.min(delay * 2, 30_000);
    };
    c.on("error", onLost);
    c.on("end", onLost);
    try {
      await c.connect();
      c.on("notification", (n) => n.channel === channel && onPayload(n.payload ?? ""));
      await c.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      c.off("end", onLost).off("error", onLost);
      c.on("error", () => {});
      await c.end().catch(() => {});
      throw err;
    }
    if (stopped) return void (await c.end().catch(() => {}));
    client = c;
    delay = 500;
  };
  const reopen = () => {
    timer = undefined;
    open().then(
      () => onGap?.(),
      () => {
        if (!stopped) timer = setTimeout(reopen, delay);
        delay = Math.min(delay * 2, 30_000);
      },
    );
  };
  await open();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await client?.end().catch(() => {});
  };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (caught) {
    const err = caught as NodeJS.ErrnoException;
    return err?.code === "EPERM";
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

/**
 * Opens the embedded database in `dir` (or in memory for "memory://"). A lock file keeps a second
 * process off the same folder: PGlite is single-process, and two writers would corrupt it.
 */
export async function openPglite(dir: string): Promise<Db> {
  const { PGlite } = await import("@electric-sql/pglite");
  let lockFile: string | undefined;
  if (dir !== "memory://") {
    await mkdir(dir, { recursive: true });
    lockFile = path.join(path.dirname(dir), path.basename(dir) + ".lock");
    const holder = Number(await readFile(lockFile, "utf8").catch(() => ""));
    if (holder && holder !== process.pid && pidAlive(holder)) {
      throw new DatabaseError(
        `the embedded database in ${dir} is in use by process ${holder}. Stop that ` +
          `process, or set DATABASE_URL to share a PostgreSQL server between processes`,
      );
    }
    await writeFile(lockFile, String(process.pid));
  }
  let pglite: PGlite;
  try {
    pglite = dir === "memory://" ? await PGlite.create() : await PGlite.create(dir);
  } catch (err) {
    if (lockFile) await rm(lockFile, { force: true });
    throw new DatabaseError(`cannot open the embedded database in ${dir}: ${(err as Error).message}`, { cause: err });
  }
  // Counted after a statement or transaction ends (failed ones too): a read begun after that sees it.
  // A plain top-level select changes nothing here (the schema's only triggers fire on writes); pg-boss's
  // own statements (raw.pglite) touch only its schema.
  let writes = 0;
  const moved = new Set<() => void>();
  const counted = <T>(p: Promise<T>) =>
    p.finally(() => {
      writes++;
      for (const fn of moved) fn();
    });
  return {
    kind: "pglite",
    raw: { pglite },
    query: (sql, params) =>
      // biome-ignore lint/suspicious/noExplicitAny: driver shim: pg and PGlite type query overloads differently
      (uncounted(sql) ? pglite.query(sql, params as any[]) : counted(pglite.query(sql, params as any[]))) as any,
    transaction: (fn) =>
      // biome-ignore lint/suspicious/noExplicitAny: driver shim: pg and PGlite type query overloads differently
      counted(pglite.transaction((tx) => fn({ query: (sql, params) => tx.query(sql, params as any[]) as any }))),
    writes: () => writes,
    onWrites(fn) {
      moved.add(fn);
      return () => void moved.delete(fn);
    },
    async listen(channel, onPayload) {
      const off = await pglite.listen(channel, onPayload);
      return async () => off();
    },
    async notify(channel, payload) {
      await pglite.query("select pg_notify($1, $2)", [channel, payload]);
    },
    async close() {
      await pglite.close();
      if (lockFile) await rm(lockFile, { force: true });
    },
  };
}

export async function openDb(opts: { databaseUrl?: string; dataDir: string; memory?: boolean }): Promise<Db> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl);
  return openPglite(opts.memory ? "memory://" : path.join(opts.dataDir, "db"));
}

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
