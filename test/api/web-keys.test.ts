// The keys page's calls over real HTTP: a key made through /web works as a Bearer key on the API
// until it is revoked there; the limit of 5; another account's key is not found; last use is kept;
// work started through /web is recorded with origin web; billing review keeps keys manageable.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, useJfkApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";
import type { TestHttpsServer } from "../helpers/https-server.js";
import { WebClient } from "../helpers/web.js";

describe.each(testBackends())("web keys on %s", (backend) => {
  let t: ApiServer;
  beforeAll(async () => {
    t = await openApiServer(backend);
  }, 60_000);
  afterAll(() => t?.close());

  it("makes a live clips.read key shown once, which works against /api/v1/me until revoked", async () => {
    const c = new WebClient(t.base);
    await c.signUp();
    const made = await c.createKey({ name: "laptop", mode: "live", scopes: ["clips.read"], expires_in_days: 30 });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      name: "laptop",
      mode: "live",
      scopes: ["clips.read"],
      status: "active",
      last_used_at: null,
    });
    expect(made.body.key).toMatch(/^svc_live_/);
    expect(made.body.prefix).toBe(made.body.key.slice(0, 13));
    expect(Date.parse(made.body.expires_at) - Date.now()).toBeGreaterThan(29 * 86400_000);

    const me = await t.call(made.body.key, "GET", "/api/v1/me");
    expect(me.status).toBe(200);
    expect(me.body.key).toMatchObject({ id: made.body.id, scopes: ["clips.read"] });
    const list = await c.call("GET", "/api/v1/keys");
    expect(list.body.max_keys).toBe(5);
    expect(list.body.keys).toHaveLength(1);
    expect(list.body.keys[0]).toMatchObject({
      id: made.body.id,
      name: "laptop",
      prefix: made.body.prefix,
      status: "active",
    });
    expect(list.body.keys[0].last_used_at).not.toBeNull(); // the /me call above
    expect(JSON.stringify(list.body)).not.toContain(made.body.key); // never shown again

    const revoked = await c.call("DELETE", `/api/v1/keys/${made.body.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe("revoked");
    const after = await t.call(made.body.key, "GET", "/api/v1/me");
    expect(after.status).toBe(401);
    expect(after.body.error.reason).toBe("revoked");
  });

  it("refuses a sixth active key with too_many_keys naming the limit, and another account's key with 404", async () => {
    const c = new WebClient(t.base);
    await c.signUp();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (await c.createKey({ name: `k${i}`, mode: i % 2 ? "test" : "live", scopes: ["clips.read", "webhooks"] })).body
          .id,
      );
    const sixth = await c.createKey({ name: "one too many" });
    expect(sixth.status).toBe(409);
    expect(sixth.body.error).toMatchObject({ code: "too_many_keys", limit: 5 });
    expect(sixth.body.error.message).toMatch(/at most 5 active keys; revoke one first/);

    const other = new WebClient(t.base);
    await other.signUp();
    const theirs = await other.call("DELETE", `/api/v1/keys/${ids[0]}`);
    expect(theirs.status).toBe(404);
    expect((await c.call("GET", "/api/v1/keys")).body.keys.every((k: any) => k.status === "active")).toBe(true);
    // Revoking one frees a place.
    expect((await c.call("DELETE", `/api/v1/keys/${ids[0]}`)).status).toBe(200);
    expect((await c.createKey({ name: "again" })).status).toBe(201);
  });

  it("checks the new key's fields, naming the one that is wrong", async () => {
    const c = new WebClient(t.base);
    await c.signUp();
    const bad = await c.call("POST", "/api/v1/keys", { name: "x", mode: "live", scopes: ["everything"] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("scopes.0");
    const days = await c.call("POST", "/api/v1/keys", {
      name: "x",
      mode: "live",
      scopes: ["clips.read"],
      expires_in_days: 7,
    });
    expect(days.body.error.field).toBe("expires_in_days");
  });

  it(
    "lets an account under billing review manage keys, but refuses live API " + "work through /web as for its keys",
    async () => {
      const c = new WebClient(t.base);
      const up = await c.signUp();
      await t.app.db.query(`update accounts set billing_review = true where id = $1`, [up.body.account.id]);
      t.app.accounts.evictAccount(up.body.account.id);
      expect((await c.call("GET", "/api/v1/account")).body.account.billing_review).toBe(true);
      expect((await c.createKey()).status).toBe(201);
      const work = await c.call("GET", "/api/v1/episodes");
      expect(work.status).toBe(403);
      expect(work.body.error.code).toBe("billing_review");
    },
  );

  it("counts session calls against a rate limit, as keys are", async () => {
    const c = new WebClient(t.base);
    await c.signUp();
    const res = await c.call("GET", "/api/v1/keys");
    expect(res.headers.get("ratelimit-limit")).toBe("600");
    expect(Number(res.headers.get("ratelimit-remaining"))).toBeLessThan(600);
  });
});

describe("work started through /web", () => {
  let s: ApiServer;
  let media: TestHttpsServer;
  useJfkApiServer((x) => ({ s, media } = x));

  it("records origin web on the run an episode by link starts", async () => {
    const c = new WebClient(s.base);
    const up = await c.signUp();
    await s.app.accounts.addCredit(up.body.account.id, 500);
    const made = await c.call("POST", "/api/v1/episodes", { source_url: media.url("/jfk.wav") });
    expect(made.status).toBe(202);
    const { rows } = await s.app.db.query(`select origin from runs where input->>'account_id' = $1`, [
      up.body.account.id,
    ]);
    expect(rows.map((r) => r.origin)).toEqual(["web"]);
  });
});
