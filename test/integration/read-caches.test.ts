// The hot read path's caches give way at once: PGlite's write count moves after every statement
// that may change data (so a kept episode read is never older than the last write), PostgreSQL's
// moves on this process's writes and on every other process's commit notice, the facade's
// read cache reloads then, and a key revoked through one database handle (another process, on
// PostgreSQL) is refused by a second handle's key cache as soon as the revocation's NOTIFY lands,
// though that cache would otherwise keep the key for an hour.
import { afterEach, describe, expect, it } from "vitest";
import { AccountService } from "../../daemon/account/accounts.js";
import { openDb, openPglite, type Db } from "../../daemon/store/db.js";
import { migrate } from "../../daemon/store/migrate.js";
import { ReadCache, readCacheOf } from "../../facade/read-cache.js";
import { freshPgDatabase, testBackends } from "../helpers/backends.js";
import { waitFor } from "../helpers/wait.js";

const opened: Db[] = [];
const services: AccountService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.stop();
  for (const db of opened.splice(0)) await db.close();
});

async function pglite(): Promise<Db> {
  const db = await openPglite("memory://");
  opened.push(db);
  await db.query(`create table t (id int primary key, v text)`);
  await db.query(`insert into t values (1, 'one')`);
  return db;
}

describe("PGlite's write count", () => {
  it("moves after writes, transactions (committed or not) and failed statements, not after plain selects", async () => {
    const db = await pglite();
    const at = () => db.writes!();
    let n = at();
    await db.query(`select v from t where id = $1`, [1]);
    await db.query(`  SELECT count(*) from t`);
    expect(at()).toBe(n);
    await db.query(`update t set v = 'uno' where id = 1`);
    expect(at()).toBeGreaterThan(n);
    n = at();
    await db.query(`with x as (update t set v = 'eins' returning 1) select * from x`);
    expect(at()).toBeGreaterThan(n);
    n = at();
    await db.transaction(async (tx) => {
      await tx.query(`select v from t where id = 1 for update`);
      await tx.query(`insert into t values (2, 'two')`);
    });
    expect(at()).toBeGreaterThan(n);
    n = at();
    await expect(
      db.transaction(async (tx) => {
        await tx.query(`insert into t values (3, 'three')`);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(at()).toBeGreaterThan(n);
    n = at();
    await expect(db.query(`insert into t values (1, 'again')`)).rejects.toThrow();
    expect(at()).toBeGreaterThan(n);
    n = at();
    await db.query(`select v from t where id = 1 for update`);
    expect(at()).toBeGreaterThan(n);
  });

  it.skipIf(!process.env.CLIPD_TEST_PG_URL)(
    "on PostgreSQL is absent until other processes' notices can be heard, then moves on their commits and its own",
    async () => {
      const url = await freshPgDatabase();
      const db = await openDb({ databaseUrl: url, dataDir: "" });
      const other = await openDb({ databaseUrl: url, dataDir: "" });
      opened.push(db, other);
      await migrate(db);
      // Nothing is kept before the LISTEN session is up: the first call only opens it.
      const cache = new ReadCache(db);
      let loads = 0;
      const load = async () => ++loads;
      await cache.read("k", load);
      await cache.read("k", load);
      expect(loads).toBe(2);
      const n = await waitFor(() => db.writes!(), { what: "the change notices' session" });
      await cache.read("k", load);
      await cache.read("k", load);
      expect(loads).toBe(3);
      // This process's own write moves it when it ends; a plain select does not.
      await db.query(`select 1`);
      expect(db.writes!()).toBe(n);
      await db.query(`update episodes set name = name where false`);
      expect(db.writes!()).toBeGreaterThan(n);
      // Another process's commit moves it once its notice arrives.
      const m = db.writes!();
      await other.transaction((tx) => tx.query(`update runs set progress = progress where false`));
      await waitFor(() => db.writes!() > m, { what: "the other process's notice" });
    },
  );
});

describe("the facade's read cache on PGlite", () => {
  it("answers from the kept read until anything is written, then reads again and sees the write", async () => {
    const db = await pglite();
    const cache = readCacheOf(db);
    expect(readCacheOf(db)).toBe(cache); // one per database handle
    let loads = 0;
    const read = () =>
      cache.read("t:1", async () => (loads++, (await db.query(`select v from t where id = 1`)).rows[0].v as string));
    // Readers at one count share one query, even while it is under way.
    expect(await Promise.all([read(), read(), read()])).toEqual(["one", "one", "one"]);
    expect(loads).toBe(1);
    await db.query(`update t set v = 'uno' where id = 1`);
    expect(await read()).toBe("uno");
    expect(loads).toBe(2);
    await db.transaction((tx) => tx.query(`update t set v = 'eins' where id = 1`));
    expect(await read()).toBe("eins");
    // An unrelated write still counts: the cache knows no tables, only that nothing was written.
    await db.query(`insert into t values (5, 'five')`);
    expect(await read()).toBe("eins");
    expect(loads).toBe(4);
  });

  it("keeps no failed read", async () => {
    const db = await pglite();
    const cache = new ReadCache(db);
    await expect(cache.read("x", async () => Promise.reject(new Error("database gone")))).rejects.toThrow(
      "database gone",
    );
    expect(await cache.read("x", async () => "back")).toBe("back");
  });
});

describe.each(testBackends())("the key cache on %s", (backend) => {
  it(
    "refuses a key revoked through another handle once the NOTIFY lands, though " + "it was cached for an hour",
    async () => {
      const url = backend === "postgres" ? await freshPgDatabase() : undefined;
      const first = url ? await openDb({ databaseUrl: url, dataDir: "" }) : await openPglite("memory://");
      opened.push(first);
      await migrate(first);
      // On PostgreSQL a second pool and LISTEN session, as another facade process has; PGlite has one.
      const second = url ? await openDb({ databaseUrl: url, dataDir: "" }) : first;
      if (second !== first) opened.push(second);
      const a = new AccountService(first);
      const b = new AccountService(second, { cacheMs: 3_600_000 });
      await a.start();
      await b.start();
      services.push(a, b);
      const acc = await a.createAccount({ email: "cache@example.com" });
      const { key, apiKey } = await a.createKey({ accountId: acc.id, mode: "live", scopes: ["clips.read"] });
      expect("key" in (await b.authenticate(key))).toBe(true); // now cached in b
      await a.revokeKey(apiKey.id);
      expect(await a.authenticate(key)).toEqual({ reason: "revoked" }); // this process: at once
      const seen = await waitFor(
        async () => {
          const r = await b.authenticate(key);
          return "reason" in r ? r : undefined;
        },
        { what: "the other handle to refuse the revoked key" },
      );
      expect(seen).toEqual({ reason: "revoked" });
    },
  );
});
