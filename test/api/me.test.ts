// GET /api/v1/me and the key checks every account route shares: 401s, 403s and rate limits.
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../../daemon/account/admin.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";

describe.each(testBackends())("GET /me on %s", (backend) => {
  let t: ApiServer;
  let acc: { accountId: string; live: string; test: string };
  beforeAll(async () => {
    t = await openApiServer(backend);
    acc = await t.account({ creditCents: 250 });
  });
  afterAll(() => t?.close());

  it("describes the account, this live key, this month's use, limits and credit", async () => {
    const res = await t.call(acc.live, "GET", "/api/v1/me");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      account: { id: acc.accountId, plan: false, billing_review: false },
      key: {
        prefix: acc.live.slice(0, 13),
        mode: "live",
        scopes: ["clips.read", "clips.write", "transcripts", "webhooks"],
        expires_at: null,
      },
      usage: {
        month: new Date().toISOString().slice(0, 7),
        plan_episodes_used: 0,
        transcripts: 0,
        free_transcripts_used: 0,
        spent_cents: 0,
      },
      limits: {
        rate_limit: { requests: 600, window_seconds: 60 },
        max_keys: 5,
        plan_episodes_per_month: 0,
        free_transcripts_per_month: 3,
        transcript_max_minutes: 90,
      },
      credit: { credit_cents: 250, plan: false, below_zero: false },
      livemode: true,
    });
    expect(res.body.account.email).toMatch(/@example\.com$/);
    expect(JSON.stringify(res.body)).not.toContain(acc.live); // the key itself is never echoed
    expect(res.headers.get("ratelimit-remaining")).toBe("599");
  });

  it("answers test keys and keys without any particular scope, with their expiry", async () => {
    const test = await t.call(acc.test, "GET", "/api/v1/me");
    expect(test.status).toBe(200);
    expect(test.body).toMatchObject({
      key: { mode: "test", prefix: acc.test.slice(0, 13) },
      livemode: false,
      account: { id: acc.accountId },
    });
    const narrow = await runAdmin(t.app.accounts, "key.create", {
      account: acc.accountId,
      mode: "live",
      scopes: "webhooks",
      expires_in_days: 30,
    });
    const res = await t.call(String(narrow.key), "GET", "/api/v1/me");
    expect(res.status).toBe(200);
    expect(res.body.key.scopes).toEqual(["webhooks"]);
    expect(Date.parse(res.body.key.expires_at) - Date.now()).toBeGreaterThan(29 * 86400_000);
  });

  it("answers 401 for a missing, malformed, unknown, revoked or expired key and for svc_free_ keys", async () => {
    const expectUnauthorized = async (
      key: string | undefined,
      headers: Record<string, string> = {},
      reason?: string,
    ) => {
      const res = await t.call(key, "GET", "/api/v1/me", undefined, headers);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("unauthorized");
      if (reason) expect(res.body.error.reason).toBe(reason);
      return res.body.error.message as string;
    };
    expect(await expectUnauthorized(undefined)).toMatch(/Authorization: Bearer/);
    await expectUnauthorized(undefined, { authorization: "Basic abc" });
    expect(await expectUnauthorized("nonsense")).toMatch(/not a clipd API key/);
    await expectUnauthorized("svc_live_" + "A".repeat(32), {}, "unknown");
    expect(await expectUnauthorized("svc_free_" + "A".repeat(32))).toMatch(/svc_free_/);

    const other = await t.account();
    const keys = await t.app.accounts.listKeys(other.accountId);
    const liveKey = keys.find((k) => k.mode === "live")!;
    expect((await t.call(other.live, "GET", "/api/v1/me")).status).toBe(200);
    await runAdmin(t.app.accounts, "key.revoke", { key_id: liveKey.id });
    await expectUnauthorized(other.live, {}, "revoked"); // at once, though the key was cached

    const testKey = keys.find((k) => k.mode === "test")!;
    await t.app.db.query(`update api_keys set expires_at = now() - interval '1 minute' where id = $1`, [testKey.id]);
    await expectUnauthorized(other.test, {}, "expired");
  });

  it("answers 403 for a live key of an account under billing review; its test keys keep working", async () => {
    const held = await t.account();
    await t.app.db.query(`update accounts set billing_review = true where id = $1`, [held.accountId]);
    t.app.accounts.evictAccount(held.accountId);
    const live = await t.call(held.live, "GET", "/api/v1/me");
    expect(live.status).toBe(403);
    expect(live.body.error.code).toBe("billing_review");
    expect((await t.call(held.test, "GET", "/api/v1/me")).status).toBe(200);
  });

  it("is in the OpenAPI document, and its answer matches the response schema", async () => {
    const doc = await (await fetch(`${t.base}/openapi.json`)).json();
    expect(doc.paths["/api/v1/me"].get.operationId).toBe("getMe");
    const ajv = new Ajv({ strict: false });
    addFormats.default(ajv);
    const check = ajv.compile(doc.paths["/api/v1/me"].get.responses["200"].content["application/json"].schema);
    for (const key of [acc.live, acc.test]) {
      const res = await t.call(key, "GET", "/api/v1/me");
      expect(check(res.body), JSON.stringify(check.errors)).toBe(true);
    }
    expect(doc.paths["/api/v1/transcripts"].post.operationId).toBe("createTranscript");
    expect(doc.paths["/api/v1/uploads/{token}"].put.operationId).toBe("putUpload");
    expect(doc.paths["/api/v1/files/{token}"].get.responses["206"]).toBeDefined();
  });
});

describe("rate limits", () => {
  let t: ApiServer;
  beforeAll(async () => {
    t = await openApiServer("pglite", { api: { rate_limit: { requests: 3, window_seconds: 60 } } });
  });
  afterAll(() => t?.close());

  it("answers 429 with Retry-After and retry_after once a key has used its window", async () => {
    const acc = await t.account();
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.call(acc.live, "GET", "/api/v1/me");
      expect(res.status).toBe(200);
      remaining.push(res.headers.get("ratelimit-remaining")!);
      expect(res.headers.get("ratelimit-limit")).toBe("3");
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const limited = await t.call(acc.live, "GET", "/api/v1/me");
    expect(limited.status).toBe(429);
    const retry = Number(limited.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(limited.body.error).toMatchObject({ code: "rate_limited", retry_after: retry, limit: 3 });
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    // Per key: the account's test key has its own window.
    expect((await t.call(acc.test, "GET", "/api/v1/me")).status).toBe(200);
  });
});
