// The web transport's sessions over real HTTP: sign-up, the cookie's flags, sign-out, sign-in and
// its rotation, idle and absolute expiry (by moving the row's clock, not by waiting), and CSRF.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";
import { randomEmail, TEST_PASSWORD, WebClient } from "../helpers/web.js";

describe.each(testBackends())("web sessions on %s", (backend) => {
  let t: ApiServer;
  beforeAll(async () => {
    t = await openApiServer(backend);
  }, 60_000);
  afterAll(() => t?.close());
  const sessionRow = async (accountId: string) =>
    (await t.app.db.query(`select * from web_sessions where account_id = $1`, [accountId])).rows;

  it("signs up into a session whose cookie is httpOnly and SameSite=Lax, then signs out and in again", async () => {
    const c = new WebClient(t.base);
    const first = await c.session();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ signed_in: false, email_enabled: false, payments: { provider: "manual" } });
    expect(first.setCookies.join("\n")).toMatch(/^clipd_csrf=[^;]+; Path=\/; HttpOnly; SameSite=Lax/m);
    expect(first.headers.get("cache-control")).toBe("no-store");

    const up = await c.signUp();
    expect(up.body).toMatchObject({
      signed_in: true,
      account: { email: c.email, email_verified: false, plan: false, billing_review: false },
    });
    const line = up.setCookies.find((l) => l.startsWith("clipd_session="))!;
    expect(line).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    expect(line).not.toContain("Secure"); // plain http on loopback, no public_url
    const rows = await sessionRow(up.body.account.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).not.toBe(c.cookies.get("clipd_session")); // only a hash is stored

    const me = await c.call("GET", "/api/v1/session");
    expect(me.body).toMatchObject({
      signed_in: true,
      account: { id: up.body.account.id },
      csrf_token: up.body.csrf_token,
    });
    const who = await c.call("GET", "/api/v1/me", undefined, {
      headers: { authorization: "Bearer svc_live_nonsense" },
    });
    expect(who.status).toBe(200); // the session is the caller; Authorization is ignored under /web
    expect(who.body).toMatchObject({
      account: { id: up.body.account.id },
      key: { mode: "live", web_session: true },
      livemode: true,
    });

    const out = await c.signOut();
    expect(out.status).toBe(200);
    expect(out.setCookies.join()).toMatch(/clipd_session=; .*Max-Age=0/);
    expect(await sessionRow(up.body.account.id)).toHaveLength(0);
    expect((await c.session()).body.signed_in).toBe(false);

    const back = await c.signIn();
    expect(back.status).toBe(200);
    expect((await c.call("GET", "/api/v1/account")).body.account.email).toBe(c.email);
  });

  it("rotates the session at every sign-in: the old cookie and its CSRF token are dead", async () => {
    const a = new WebClient(t.base);
    await a.signUp();
    const oldCookie = a.cookies.get("clipd_session")!;
    const oldCsrf = a.csrf!;
    const again = await a.signIn();
    expect(again.status).toBe(200);
    expect(a.cookies.get("clipd_session")).not.toBe(oldCookie);
    expect(a.csrf).not.toBe(oldCsrf);
    const stale = new WebClient(t.base);
    stale.cookies.set("clipd_session", oldCookie);
    const res = await stale.call("GET", "/api/v1/account");
    expect(res.status).toBe(401);
    expect(res.setCookies.join()).toMatch(/clipd_session=; .*Max-Age=0/); // the dead cookie is cleared
    expect((await a.call("GET", "/api/v1/account")).status).toBe(200);
  });

  it("ends a session left idle too long, and one past its absolute end however used", async () => {
    const c = new WebClient(t.base);
    const up = await c.signUp();
    const id = up.body.account.id;
    await t.app.db.query(`update web_sessions set last_seen_at = now() - interval '73 hours' where account_id = $1`, [
      id,
    ]);
    expect((await c.call("GET", "/api/v1/account")).status).toBe(401);
    expect(await sessionRow(id)).toHaveLength(0);

    expect((await c.signIn()).status).toBe(200);
    // Used a moment ago, but signed in 31 days ago: the absolute end (30 days) holds.
    await t.app.db.query(
      `update web_sessions set created_at = now() - interval '31 days', expires_at ` +
        `= now() - interval '1 day' where account_id = $1`,
      [id],
    );
    expect((await c.call("GET", "/api/v1/account")).status).toBe(401);
    expect((await c.signIn()).status).toBe(200);
    // last_seen_at moves, at most once a minute.
    await t.app.db.query(`update web_sessions set last_seen_at = now() - interval '2 hours' where account_id = $1`, [
      id,
    ]);
    expect((await c.call("GET", "/api/v1/account")).status).toBe(200);
    const [row] = await sessionRow(id);
    expect(Date.now() - new Date(row.last_seen_at).getTime()).toBeLessThan(60_000);
  });

  it("signs out everywhere: every session of the account ends", async () => {
    const a = new WebClient(t.base);
    await a.signUp();
    const b = new WebClient(t.base);
    expect((await b.signIn(a.email, a.password)).status).toBe(200);
    expect((await a.signOut(true)).body.ended).toBe("everywhere");
    expect((await b.call("GET", "/api/v1/account")).status).toBe(401);
  });

  it("refuses state-changing calls without the Origin or the CSRF token, naming what was wrong", async () => {
    const c = new WebClient(t.base);
    await c.signUp();
    const body = { name: "k", mode: "live", scopes: ["clips.read"] };
    const noOrigin = await c.call("POST", "/api/v1/keys", body, { origin: null });
    expect(noOrigin.status).toBe(403);
    expect(noOrigin.body.error).toMatchObject({ code: "csrf_failed", field: "Origin" });
    expect(noOrigin.body.error.message).toMatch(/Origin header is missing/);
    const wrongOrigin = await c.call("POST", "/api/v1/keys", body, { origin: "https://evil.example" });
    expect(wrongOrigin.body.error).toMatchObject({ code: "csrf_failed", field: "Origin" });
    expect(wrongOrigin.body.error.message).toContain("https://evil.example");
    const noToken = await c.call("POST", "/api/v1/keys", body, { csrf: null });
    expect(noToken.body.error).toMatchObject({ code: "csrf_failed", field: "X-CSRF-Token" });
    expect(noToken.body.error.message).toMatch(/missing/);
    const wrongToken = await c.call("POST", "/api/v1/keys", body, { csrf: "x".repeat(43) });
    expect(wrongToken.status).toBe(403);
    expect(wrongToken.body.error.message).toMatch(/does not match this session's token/);
    // An API operation under /web needs it too.
    const hook = await c.call("POST", "/api/v1/webhooks", { url: "https://example.com/h" }, { csrf: null });
    expect(hook.body.error.code).toBe("csrf_failed");
    expect((await c.call("GET", "/api/v1/keys")).body.keys).toEqual([]); // nothing was made
    const ok = await c.createKey();
    expect(ok.status).toBe(201);

    // Signed out, the token is the clipd_csrf cookie's (double submit).
    const fresh = new WebClient(t.base);
    const cookieless = await fresh.call(
      "POST",
      "/api/v1/signin",
      { email: c.email, password: TEST_PASSWORD },
      { csrf: "whatever" },
    );
    expect(cookieless.body.error.message).toMatch(/clipd_csrf cookie is missing/);
    await fresh.session();
    const mismatch = await fresh.call(
      "POST",
      "/api/v1/signin",
      { email: c.email, password: TEST_PASSWORD },
      { csrf: "whatever" },
    );
    expect(mismatch.body.error.message).toMatch(/does not match the clipd_csrf cookie/);
    expect((await fresh.signIn(c.email, TEST_PASSWORD)).status).toBe(200);
  });

  it("serves web-only operations only under /web, and signed-in ones only to a session", async () => {
    expect((await fetch(`${t.base}/api/v1/session`)).status).toBe(404);
    expect((await fetch(`${t.base}/api/v1/keys`)).status).toBe(404);
    const c = new WebClient(t.base);
    const anon = await c.call("GET", "/api/v1/keys");
    expect(anon.status).toBe(401);
    expect(anon.body.error.code).toBe("unauthorized");
    const doc = await (await fetch(`${t.base}/openapi.json`)).json();
    expect(
      Object.keys(doc.paths).filter((p) =>
        /^\/api\/v1\/(session|signin|signup|signout|keys|account|password|email)/.test(p),
      ),
    ).toEqual([]);
  });

  it("refuses a second sign-up with the same address in any case, and short passwords", async () => {
    const email = randomEmail();
    await new WebClient(t.base).signUp(email);
    const c = new WebClient(t.base);
    await c.session();
    const dup = await c.call("POST", "/api/v1/signup", { email: email.toUpperCase(), password: TEST_PASSWORD });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("email_taken");
    const short = await c.call("POST", "/api/v1/signup", { email: randomEmail(), password: "short" });
    expect(short.status).toBe(400);
    expect(short.body.error).toMatchObject({ code: "invalid_request", field: "password", min: 10 });
  });
});

describe("web sessions behind https (server.public_url)", () => {
  let t: ApiServer;
  beforeAll(async () => {
    t = await openApiServer("pglite", { server: { public_url: "https://clipd.example" } });
  }, 60_000);
  afterAll(() => t?.close());

  it("marks cookies Secure and takes only the public origin as the site's", async () => {
    const c = new WebClient(t.base);
    const first = await c.session();
    expect(first.setCookies.join()).toMatch(/clipd_csrf=[^;]+;.*; Secure/);
    const local = await c.call("POST", "/api/v1/signup", { email: randomEmail(), password: TEST_PASSWORD });
    expect(local.status).toBe(403);
    expect(local.body.error.message).toContain("(https://clipd.example)");
    const up = await c.call(
      "POST",
      "/api/v1/signup",
      { email: randomEmail(), password: TEST_PASSWORD },
      { origin: "https://clipd.example" },
    );
    expect(up.status).toBe(201);
    expect(up.setCookies.find((l) => l.startsWith("clipd_session="))).toMatch(
      /; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/,
    );
  });
});

describe("a clipd configured otherwise: sign-up closed, other free limits", () => {
  let t: ApiServer;
  beforeAll(async () => {
    t = await openApiServer("pglite", {
      web: { signup_open: false },
      free: { max_seconds_anon: 300, files_per_day_key: 4 },
    });
  }, 60_000);
  afterAll(() => t?.close());

  it("refuses sign-up with 403 signup_closed and says so in the session; sign-in still works", async () => {
    const c = new WebClient(t.base);
    // The session also states the free tier's limits as configured, for the free page.
    expect((await c.session()).body).toMatchObject({
      signed_in: false,
      signup_open: false,
      free_limits: { anon_minutes: 5, key_minutes: 90, key_per_day: 4, audio_days: 7, text_days: 30 },
    });
    const up = await c.call("POST", "/api/v1/signup", { email: randomEmail(), password: TEST_PASSWORD });
    expect(up.status).toBe(403);
    expect(up.body.error).toMatchObject({ code: "signup_closed", field: "web.signup_open" });
    expect(up.body.error.message).toContain("clipd account create");
    const signin = await c.call("POST", "/api/v1/signin", { email: randomEmail(), password: TEST_PASSWORD });
    expect(signin.body.error.code).toBe("invalid_credentials");
  });
});
