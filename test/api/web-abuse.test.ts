// Issue 27's attacks on the website's accounts, replayed over real HTTP on loopback with a real SMTP
// receiver: a reset link built from a forged Host header (finding 1), a stranger locking the owner
// out with wrong passwords (4), a mailbox flooded with reset mails (5), sign-ups in bulk and free
// transcripts for unverified addresses (9), common passwords (10a) and signed tokens with text
// after them (10b). Client addresses are told apart by X-Forwarded-For (free.trust_proxy).
import http from "node:http";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDoctor } from "../../daemon/cli/doctor.js";
import { freePort } from "../helpers/browser.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";
import { linkToken, openMailbox, type Mailbox } from "../helpers/mailbox.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { randomEmail, TEST_PASSWORD, WebClient, type WebAnswer } from "../helpers/web.js";

let addrs = 0;
/** A client address of its own for each use, so one test's counts are not another's. */
const newAddr = () => `198.51.100.${++addrs}`;
const from = (addr: string) => ({ headers: { "x-forwarded-for": addr } });

/** A POST under /web with a Host header of the sender's choosing (fetch always sends the real one). */
function postWithHost(c: WebClient, path: string, body: unknown, host: string, origin: string) {
  const url = new URL(`${c.base}/web${path}`);
  const cookie = [...c.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; ");
  return new Promise<Pick<WebAnswer, "status" | "body">>((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: "POST",
        headers: { host, origin, cookie, "content-type": "application/json", "x-csrf-token": c.csrf ?? "" },
      },
      (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || "{}") }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

async function signUpFrom(c: WebClient, addr: string, email = randomEmail(), password = TEST_PASSWORD) {
  if (!c.csrf) await c.session();
  const a = await c.call("POST", "/api/v1/signup", { email, password }, from(addr));
  if (a.status === 201) Object.assign(c, { email, password });
  return a;
}

describe.each(testBackends())("website abuse limits on %s", (backend) => {
  let t: ApiServer;
  let box: Mailbox;
  let publicUrl: string;
  beforeAll(async () => {
    box = await openMailbox();
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    t = await openApiServer(backend, {
      smtp: box.smtp,
      server: { port, public_url: publicUrl },
      free: { trust_proxy: true },
      web: {
        signin_free_attempts: 3,
        signin_backoff_seconds: 30,
        signin_attempts_per_address: 50,
        mails_per_account_per_hour: 3,
        mails_per_address_per_hour: 5,
        signups_per_address_per_day: 3,
      },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await box?.close();
  });
  const mailsTo = (to: string, subject: RegExp) =>
    box.mails.filter((m) => m.to.includes(to) && subject.test(m.subject));

  it("1: builds reset links from server.public_url only, whatever Host the request names", async () => {
    const owner = new WebClient(t.base);
    await signUpFrom(owner, newAddr());
    const anon = new WebClient(t.base);
    await anon.session();
    const forged = await postWithHost(
      anon,
      "/api/v1/password/forgot",
      { email: owner.email },
      "evil.example",
      publicUrl,
    );
    expect(forged.status).toBe(202);
    const mail = await box.next(owner.email!, /Reset your clipd password/);
    expect(mail.text).not.toContain("evil.example");
    expect(linkToken(mail, publicUrl, "/reset-password")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The CSRF check's site origin is public_url's too: a forged Host does not make a forged Origin the site's.
    const csrf = await postWithHost(
      anon,
      "/api/v1/password/forgot",
      { email: owner.email },
      "evil.example",
      "http://evil.example",
    );
    expect(csrf.status).toBe(403);
    expect(csrf.body.error).toMatchObject({ code: "csrf_failed", field: "Origin" });
  });

  it("4: a stranger's wrong passwords hold the stranger's address, with a doubling wait, not the owner's", async () => {
    const ownerAddr = newAddr();
    const owner = new WebClient(t.base);
    await signUpFrom(owner, ownerAddr);
    const stranger = new WebClient(t.base);
    await stranger.session();
    const strangerAddr = newAddr();
    const guess = () =>
      stranger.call(
        "POST",
        "/api/v1/signin",
        { email: owner.email, password: "a wrong guess here" },
        from(strangerAddr),
      );
    for (let i = 0; i < 3; i++) expect((await guess()).status).toBe(401);
    const held = await guess();
    expect(held.status).toBe(429);
    expect(held.body.error).toMatchObject({ code: "rate_limited", per: "account and address", limit: 3 });
    expect(held.body.error.retry_after).toBeGreaterThan(25);
    expect(held.body.error.retry_after).toBeLessThanOrEqual(30);
    // The owner, from their own address, with the right password, is not held at all.
    const back = new WebClient(t.base);
    await back.session();
    const ok = await back.call(
      "POST",
      "/api/v1/signin",
      { email: owner.email, password: TEST_PASSWORD },
      from(ownerAddr),
    );
    expect(ok.status).toBe(200);
    // The wait passes; one more failure doubles it.
    const wait = `update signin_failures set failed_at = failed_at - interval '31 seconds' where subject like 'pair:%'`;
    await t.app.db.query(wait);
    expect((await guess()).status).toBe(401);
    const doubled = await guess();
    expect(doubled.status).toBe(429);
    expect(doubled.body.error.retry_after).toBeGreaterThan(55);
    expect(doubled.body.error.retry_after).toBeLessThanOrEqual(60);
  });

  it("5: mails at most 3 resets an hour to one account and 5 from one address; the answer stays 202", async () => {
    const owner = new WebClient(t.base);
    await signUpFrom(owner, newAddr());
    await box.next(owner.email!, /Confirm your e-mail/); // the sign-up's own mail counts too
    const anon = new WebClient(t.base);
    await anon.session();
    const addr = newAddr();
    for (let i = 0; i < 6; i++) {
      const res = await anon.call("POST", "/api/v1/password/forgot", { email: owner.email }, from(addr));
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ accepted: true });
    }
    await t.app.web.recovery.settle();
    expect(mailsTo(owner.email!, /Reset/)).toHaveLength(2); // 3 an hour, the verification mail was one

    // Five accounts, one requester: the fifth mail from the address is its last this hour.
    const victims: string[] = [];
    for (let i = 0; i < 6; i++) {
      const v = new WebClient(t.base);
      await signUpFrom(v, newAddr());
      victims.push(v.email!);
    }
    const flooder = newAddr();
    for (const email of victims)
      expect((await anon.call("POST", "/api/v1/password/forgot", { email }, from(flooder))).status).toBe(202);
    await t.app.web.recovery.settle();
    // Requests are settled in the background, not always in the order they came: which victim goes
    // without is not fixed (seen on a loaded machine), that five of the six get one mail is.
    expect(victims.map((v) => mailsTo(v, /Reset/).length).sort()).toEqual([0, 1, 1, 1, 1, 1]);
  });

  it("5: the verification resend answers 429 mail_limit with retry_after past the account's limit", async () => {
    const c = new WebClient(t.base);
    const addr = newAddr();
    const made = await signUpFrom(c, addr);
    expect(made.body.verification_mail).toEqual({ sent: true });
    for (let i = 0; i < 2; i++)
      expect((await c.call("POST", "/api/v1/email/verify/resend", {}, from(addr))).status).toBe(202);
    const over = await c.call("POST", "/api/v1/email/verify/resend", {}, from(addr));
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ code: "mail_limit", per: "account", limit: 3 });
    expect(over.body.error.retry_after).toBeGreaterThan(3500);
    expect(mailsTo(c.email!, /Confirm/)).toHaveLength(3);
  });

  it("9: takes 3 sign-ups a day from one address, then 429 signup_limit; others still sign up", async () => {
    const addr = newAddr();
    for (let i = 0; i < 3; i++) expect((await signUpFrom(new WebClient(t.base), addr)).status).toBe(201);
    const over = await signUpFrom(new WebClient(t.base), addr);
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ code: "signup_limit", per: "address", limit: 3 });
    expect(over.body.error.retry_after).toBeGreaterThan(86000);
    expect((await signUpFrom(new WebClient(t.base), newAddr())).status).toBe(201);
  });

  it("9: gives a website sign-up its free transcripts only once its address is verified", async () => {
    const c = new WebClient(t.base);
    await signUpFrom(c, newAddr());
    const jfk = await readFile(TEST_MEDIA.jfkWav);
    const upload = async () => {
      const made = await c.call("POST", "/api/v1/transcripts/uploads", { file_name: "jfk.wav" });
      expect(made.status).toBe(202);
      const range = `bytes 0-${jfk.length - 1}/${jfk.length}`;
      const headers = { "content-type": "audio/wav", "content-range": range };
      const put = await fetch(made.body.upload.url, { method: "PUT", headers, body: jfk });
      expect(put.status).toBe(200);
      return c.call("POST", `/api/v1/transcripts/${made.body.transcript_id}/uploaded`, {});
    };
    const refused = await upload();
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({ code: "credit_required", credit_cents: 0 });
    expect(refused.body.error.message).toMatch(/once this account's e-mail address is verified/);
    const token = linkToken(await box.next(c.email!, /Confirm/), publicUrl, "/verify-email");
    expect((await c.call("POST", "/api/v1/email/verify", { token })).status).toBe(200);
    const started = await upload();
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ free: true });
  }, 60_000);

  it("10a: refuses common, repeated and sequential passwords with weak_password naming the field", async () => {
    const c = new WebClient(t.base);
    await c.session();
    const addr = newAddr();
    for (const password of ["aaaaaaaaaa", "Password123", "qwertyuiop", "1234567890", "abcdefghij", "abcabcabcabc"]) {
      const res: WebAnswer = await c.call("POST", "/api/v1/signup", { email: randomEmail(), password }, from(addr));
      expect(res.status, password).toBe(400);
      expect(res.body.error, password).toMatchObject({ code: "weak_password", field: "password" });
      expect(res.body.error.message, password).toMatch(/too easy to guess/);
    }
    // Refused before they count as sign-ups: the address still has its three.
    expect((await signUpFrom(c, addr, randomEmail(), "plum tractor ocean")).status).toBe(201);
    const change = await c.call("POST", "/api/v1/account/password", {
      current_password: "plum tractor ocean",
      new_password: "iloveyou123",
    });
    expect(change.body.error).toMatchObject({ code: "weak_password", field: "new_password" });
  });

  it("10b: refuses mail tokens and signed links with anything added, changed or cut", async () => {
    const c = new WebClient(t.base);
    await signUpFrom(c, newAddr());
    const token = linkToken(await box.next(c.email!, /Confirm/), publicUrl, "/verify-email");
    for (const bad of [`${token}.x`, `${token}=`, `${token} `, token.slice(0, 42)]) {
      const res = await c.call("POST", "/api/v1/email/verify", { token: bad });
      expect(res.body.error?.code, bad).toBe("invalid_token");
    }
    expect((await c.call("POST", "/api/v1/email/verify", { token })).status).toBe(200);

    // A results link: its MAC with a second dot and text after it, or another spelling of its last character.
    const signer = (await import("../../facade/signing.js")).LinkSigner;
    const s = await signer.create(t.app.db, t.app.config.server.signing_secret || undefined);
    const link = s.sign({ k: "download", key: "nothing/here" }, 60).token;
    expect(s.verify(link, "download").key).toBe("nothing/here");
    // The last of 43 base64url characters carries 4 bits and 2 spare ones a decoder ignores.
    const abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const twin = link.slice(0, -1) + abc[abc.indexOf(link.at(-1)!) ^ 1];
    for (const bad of [`${link}.extra`, `${link}extra`, `${link}.`, twin, `.${link}`]) {
      expect(() => s.verify(bad, "download"), bad).toThrow(/not valid/);
    }
  });
});

describe("website mail without server.public_url", () => {
  let t: ApiServer;
  let box: Mailbox;
  beforeAll(async () => {
    box = await openMailbox();
    t = await openApiServer("pglite", {
      smtp: box.smtp,
      free: { trust_proxy: true },
      web: { signin_free_attempts: 2, signin_attempts_per_account: 4 },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await box?.close();
  });

  it("sends no account mail, says why in every answer, and doctor says how to fix it", async () => {
    const c = new WebClient(t.base);
    const made = await c.signUp();
    expect(made.body.verification_mail).toMatchObject({ sent: false, error: { code: "mail_not_configured" } });
    const anon = new WebClient(t.base);
    await anon.session();
    // The attack: a reset asked for with the attacker's Host, which used to become the link's origin.
    const forged = await postWithHost(
      anon,
      "/api/v1/password/forgot",
      { email: c.email },
      "evil.example",
      "http://evil.example",
    );
    expect(forged.status).not.toBe(202);
    const forgot = await anon.call("POST", "/api/v1/password/forgot", { email: c.email });
    expect(forgot.status).toBe(409);
    expect(forgot.body.error).toMatchObject({ code: "mail_not_configured", field: "server.public_url" });
    expect(forgot.body.error.message).toContain("server.public_url");
    const resend = await c.call("POST", "/api/v1/email/verify/resend", {});
    expect(resend.body.error.code).toBe("mail_not_configured");
    await t.app.web.recovery.settle();
    expect(box.mails).toEqual([]);
    const checks = await runDoctor(t.app.config, { database: false });
    expect(checks.find((x) => x.name === "mail links")).toMatchObject({
      level: "warn",
      detail: expect.stringContaining("server.public_url"),
      fix: expect.stringContaining("server.public_url"),
    });
  }, 60_000);

  it("4: the per-account ceiling holds new addresses, not one the owner signed in from", async () => {
    const owner = new WebClient(t.base);
    const ownerAddr = newAddr();
    await owner.session();
    const email = randomEmail("ceiling");
    expect(
      (await owner.call("POST", "/api/v1/signup", { email, password: TEST_PASSWORD }, from(ownerAddr))).status,
    ).toBe(201);
    expect(
      (await owner.call("POST", "/api/v1/signin", { email, password: TEST_PASSWORD }, from(ownerAddr))).status,
    ).toBe(200);
    const guesser = new WebClient(t.base);
    await guesser.session();
    for (let i = 0; i < 4; i++) {
      const res = await guesser.call(
        "POST",
        "/api/v1/signin",
        { email, password: "a wrong guess here" },
        from(newAddr()),
      );
      expect(res.status).toBe(401);
    }
    const fresh = new WebClient(t.base);
    await fresh.session();
    const held = await fresh.call("POST", "/api/v1/signin", { email, password: TEST_PASSWORD }, from(newAddr()));
    expect(held.status).toBe(429);
    expect(held.body.error).toMatchObject({ code: "rate_limited", per: "account", limit: 4 });
    const known = await fresh.call("POST", "/api/v1/signin", { email, password: TEST_PASSWORD }, from(ownerAddr));
    expect(known.status).toBe(200);
  });
});
