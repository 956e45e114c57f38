// Database faults on real PostgreSQL through a proxy (db-faults-core.ts): a restart and a 10 s
// refusal mid-run. The process must not crash, /healthz must say the database is unreachable
// within its bound while it is (also while it hangs without answering), the API answer 503
// database_unavailable, and every run, event and delivery must come through once.
// bench/chaos/db-faults.ts runs the same with more work.
import { describe, expect, it } from "vitest";
import { runDbFaults } from "./db-faults-core.js";

describe.skipIf(!process.env.CLIPD_TEST_PG_URL)("database faults (PostgreSQL restarted, then refused for 10 s)", () => {
  it("resumes every run, loses nothing, and /healthz reports the outage while it lasts", async () => {
    const r = await runDbFaults({ perBatch: 3, outageMs: 10_000, restartMs: 1500, hangMs: 5000, healthBoundMs: 3000 });
    expect(r.unhandled).toEqual([]);
    expect(r.lost).toEqual([]);
    expect(r.held).toBe(r.tried);
    const down = r.health.filter((h) => h.phase !== "before" && h.phase !== "after");
    expect(down.length).toBeGreaterThan(0);
    for (const h of down) {
      expect(h, JSON.stringify(h)).toMatchObject({ status: 503, database: "unreachable" });
      expect(h.ms).toBeLessThan(3000);
    }
    expect(r.health.at(-1)!.status).toBe(200);
    // Meanwhile the API says the database is away (503, try again), not 500 internal; once a hung
    // database's connect times out (10 s) at the latest.
    const calls = r.api.filter((a) => a.phase !== "before" && a.phase !== "after");
    for (const a of calls) expect(a, JSON.stringify(a)).toMatchObject({ status: 503, code: "database_unavailable" });
    expect(Math.max(...calls.map((a) => a.ms))).toBeLessThan(12_000);
    expect(r.api.at(-1)!.status).toBe(200);
  }, 150_000);
});
