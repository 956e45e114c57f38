// The free transcription API's limits across two `clipd serve` processes on one PostgreSQL, with
// concurrent requests from both: the daily counts, the key issue limit and the budget ceiling are
// counted in the database, so together the two facades admit exactly what one would. The client
// address is the socket's when the config does not trust a proxy, whatever X-Forwarded-For says.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnClipd, type Spawned } from "../helpers/cli.js";
import { daemonEnv } from "../helpers/daemon-config.js";
import { serveFile, startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { makeSilence } from "../helpers/media.js";
import pg from "pg";

// A 3 s file costs 3 cents at 60 cents a minute; the month's budget holds six of them.
const CENTS_PER_MINUTE = 60;
const BUDGET_CENTS = 18;

describe.skipIf(!process.env.CLIPD_TEST_PG_URL)("free API limits across two facade processes on PostgreSQL", () => {
  let media: TestHttpsServer;
  let db: pg.Client;
  const facades: Array<{ proc: Spawned; base: string }> = [];

  beforeAll(async () => {
    media = await startHttpsServer({ "/silence3.wav": serveFile(await makeSilence(3), "audio/wav") });
    const d = await daemonEnv("postgres", {
      network: { allow_loopback: true, extra_ca: media.caPath },
      free: {
        trust_proxy: false,
        cents_per_minute: CENTS_PER_MINUTE,
        monthly_budget_cents: BUDGET_CENTS,
        anon_share: 1,
      },
    });
    for (let i = 0; i < 2; i++) {
      const proc = spawnClipd(["serve"], d.env);
      const m = await proc.waitFor(/"url":"(http:\/\/localhost:\d+)"/, 60_000);
      facades.push({ proc, base: m[1]!.replace("localhost", "127.0.0.1") });
    }
    db = new pg.Client({ connectionString: d.databaseUrl });
    await db.connect();
  }, 120_000);
  afterAll(async () => {
    for (const f of facades) f.proc.kill("SIGKILL");
    await db?.end();
    await media?.close();
  });

  /** POSTs to facade `i % 2`: consecutive calls alternate between the two processes. */
  const post = async (i: number, path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${facades[i % 2]!.base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const submit = (i: number, key?: string, headers: Record<string, string> = {}) =>
    post(
      i,
      "/api/v1/transcribe",
      { url: media.url("/silence3.wav") },
      { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    );
  const codes = (answers: Array<{ status: number; body: any }>) =>
    answers.map((a) => (a.status === 202 ? "accepted" : a.body.error.code)).sort();

  it("issues at most 3 keys a day per email, however the requests are spread", async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => post(i, "/api/v1/transcribe/keys", { email: "busy@example.com" })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 429).every((a) => a.body.error.code === "key_limit")).toBe(true);
    expect(
      (await db.query(`select count(*)::int as n from free_keys where email = 'busy@example.com'`)).rows[0].n,
    ).toBe(3);
  });

  it("admits one file a day per client address without a key; X-Forwarded-For is not trusted by default", async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => submit(i, undefined, { "x-forwarded-for": `203.0.113.${i + 1}` })),
    );
    expect(codes(answers)).toEqual(["accepted", ...Array(5).fill("anon_daily_limit")]);
    const { rows } = await db.query(`select client_addr from free_jobs where key_id is null`);
    expect(rows).toHaveLength(1);
    expect(rows[0].client_addr).toMatch(/127\.0\.0\.1/); // the socket's address, not a forwarded one
  }, 60_000);

  it("admits a key's 2 files a day across both processes", async () => {
    const key = (await post(0, "/api/v1/transcribe/keys", { email: "two@example.com" })).body.key as string;
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => submit(i, key)));
    expect(codes(answers)).toEqual(["accepted", "accepted", ...Array(4).fill("daily_limit")]);
  }, 60_000);

  it("stops at the monthly budget: the ceiling holds across both processes", async () => {
    // 3 files (9 cents) are in; the budget has room for 3 more of the 6 sent by 3 keys.
    const keys = await Promise.all(
      [0, 1, 2].map(
        async (i) => (await post(i, "/api/v1/transcribe/keys", { email: `c${i}@example.com` })).body.key as string,
      ),
    );
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => submit(i, keys[i % 3])));
    expect(codes(answers)).toEqual([...Array(3).fill("accepted"), ...Array(3).fill("ceiling")]);
    const budget = (await db.query(`select spent_cents from free_budget`)).rows;
    expect(budget).toHaveLength(1);
    expect(Number(budget[0].spent_cents)).toBeCloseTo(BUDGET_CENTS, 6);
    expect((await db.query(`select count(*)::int as n from free_jobs`)).rows[0].n).toBe(6);
  }, 60_000);
});
