/** The PostgreSQL server backend (DATABASE_URL): a pg.Pool, and LISTEN on sessions of its own. */
import { createHash } from "node:crypto";
import pg from "pg";
import { DatabaseError, uncounted, type Db } from "./db-contract.js";
import { PgChanges } from "./pg-changes.js";
import { unreachableOr } from "./unreachable.js";

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
