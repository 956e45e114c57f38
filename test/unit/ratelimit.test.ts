// The rate limiter counts locally and flushes to the shared table on a timer. A request taken while
// a flush is on its way must still see the counts being sent: before, those counts were in neither
// the local pending count nor the shared total until the flush returned, so "remaining" went back up
// (999, 998, 999, …) and a client could pass the limit by the size of one flush. Its writes leave
// the count of writes that kept API reads follow (Db.writes) where it was.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, uncounted, type Db } from "../../daemon/store/db.js";
import { migrate } from "../../daemon/store/migrate.js";
import { RateLimiter } from "../../facade/ratelimit.js";

describe("rate limiter", () => {
  let db: Db;
  beforeAll(async () => {
    db = await openDb({ dataDir: "", memory: true });
    await migrate(db);
  });
  afterAll(async () => {
    await db?.close();
  });

  it("counts down by one per request while a flush is in flight, and after it returns", async () => {
    const rates = new RateLimiter(db, { limit: 1000, windowSeconds: 3600 });
    const seen = [rates.take("k").remaining, rates.take("k").remaining];
    const flushing = rates.flush(); // the query is sent; its answer has not come back
    seen.push(rates.take("k").remaining, rates.take("k").remaining);
    await flushing;
    seen.push(rates.take("k").remaining);
    await rates.flush();
    seen.push(rates.take("k").remaining);
    expect(seen).toEqual([999, 998, 997, 996, 995, 994]);
    await rates.stop();
  });

  it("leaves the count of writes alone, so a flush after each request keeps the API's kept reads", async () => {
    // facade/read-cache.ts keeps a read while Db.writes stands still; the flush follows every request.
    const rates = new RateLimiter(db, { limit: 1000, windowSeconds: 3600 });
    const before = db.writes!();
    rates.take("reader");
    await rates.flush();
    expect(db.writes!()).toBe(before);
    expect(uncounted("delete from rate_counters where window_start < $1")).toBe(true);
    expect(uncounted("update episodes set name = $1 where id = $2")).toBe(false);
    await db.query("update rate_counters set count = count where false");
    expect(db.writes!()).toBe(before + 1); // other writes to it still count: only the limiter's two are known
    await rates.stop();
  });

  it("shares one window's count between two limiters on the same table (two nodes)", async () => {
    const a = new RateLimiter(db, { limit: 5, windowSeconds: 3600 });
    const b = new RateLimiter(db, { limit: 5, windowSeconds: 3600 });
    for (let i = 0; i < 3; i++) a.take("shared");
    await a.flush();
    b.take("shared");
    await b.flush();
    // b now knows a's three and its own one: one request is left, then the limit holds.
    expect(b.take("shared")).toMatchObject({ remaining: 0, allowed: true });
    expect(b.take("shared")).toMatchObject({ remaining: 0, allowed: false });
    await a.stop();
    await b.stop();
  });
});
