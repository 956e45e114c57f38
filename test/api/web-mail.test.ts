// The mail-link flows through a real SMTP receiver on loopback: the verification mail at sign-up,
// and a forgotten password reset by link (single use, every session ended). Without SMTP the
// forgot call says the operator resets passwords.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { freePort } from "../helpers/browser.js";
import { testBackends } from "../helpers/backends.js";
import { linkToken, openMailbox, type Mailbox } from "../helpers/mailbox.js";
import { randomEmail, WebClient } from "../helpers/web.js";

describe.each(testBackends())("web mail on %s", (backend) => {
  let t: ApiServer;
  let box: Mailbox;
  beforeAll(async () => {
    box = await openMailbox();
    // Mail links come only from server.public_url (issue 27): here, the server's own address.
    const port = await freePort();
    t = await openApiServer(backend, { smtp: box.smtp, server: { port, public_url: `http://127.0.0.1:${port}` } });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await box?.close();
  });

  it("mails a verification link at sign-up; the link verifies the address once", async () => {
    const c = new WebClient(t.base);
    expect((await c.session()).body.email_enabled).toBe(true);
    await c.signUp();
    const mail = await box.next(c.email!, /Confirm your e-mail/);
    const token = linkToken(mail, t.base, "/verify-email");
    expect((await c.call("GET", "/api/v1/account")).body.account.email_verified).toBe(false);
    // The link may be opened in a browser that is signed out.
    const anon = new WebClient(t.base);
    await anon.session();
    const verified = await anon.call("POST", "/api/v1/email/verify", { token });
    expect(verified.status).toBe(200);
    expect((await c.call("GET", "/api/v1/account")).body.account.email_verified).toBe(true);
    const again = await anon.call("POST", "/api/v1/email/verify", { token });
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ code: "invalid_token", field: "token" });
  });

  it("resets a forgotten password by link: 202 for any address, single use, every session ended", async () => {
    const c = new WebClient(t.base);
    await c.signUp();
    const other = new WebClient(t.base);
    expect((await other.signIn(c.email, c.password)).status).toBe(200);

    const anon = new WebClient(t.base);
    await anon.session();
    const unknown = randomEmail("nobody");
    expect((await anon.call("POST", "/api/v1/password/forgot", { email: unknown })).status).toBe(202);
    const known = await anon.call("POST", "/api/v1/password/forgot", { email: c.email!.toUpperCase() });
    expect(known.status).toBe(202);
    const mail = await box.next(c.email!, /Reset your clipd password/);
    expect(box.mails.some((m) => m.to.includes(unknown))).toBe(false);
    const token = linkToken(mail, t.base, "/reset-password");
    expect(mail.text).not.toContain(c.password!);

    const short = await anon.call("POST", "/api/v1/password/reset", { token, password: "short" });
    expect(short.body.error.field).toBe("password");
    const reset = await anon.call("POST", "/api/v1/password/reset", { token, password: "a brand new passphrase" });
    expect(reset.status).toBe(200);
    expect((await c.call("GET", "/api/v1/account")).status).toBe(401);
    expect((await other.call("GET", "/api/v1/account")).status).toBe(401);
    expect(
      (await anon.call("POST", "/api/v1/password/reset", { token, password: "yet another passphrase" })).body.error
        .code,
    ).toBe("invalid_token");
    expect((await new WebClient(t.base).signIn(c.email, c.password)).status).toBe(401);
    const back = new WebClient(t.base);
    expect((await back.signIn(c.email, "a brand new passphrase")).status).toBe(200);
    // the link proved the mailbox
    expect((await back.call("GET", "/api/v1/account")).body.account.email_verified).toBe(true);
  });

  it("refuses a reset link more than an hour old", async () => {
    const c = new WebClient(t.base);
    await c.signUp();
    await c.call("POST", "/api/v1/password/forgot", { email: c.email });
    const token = linkToken(await box.next(c.email!, /Reset/), t.base, "/reset-password");
    await t.app.db.query(`update web_tokens set expires_at = now() - interval '1 second' where purpose = 'reset'`);
    const late = await c.call("POST", "/api/v1/password/reset", { token, password: "a brand new passphrase" });
    expect(late.status).toBe(400);
    expect(late.body.error.message).toMatch(/more than an hour old/);
  });
});

describe("web mail without SMTP", () => {
  let t: ApiServer;
  beforeAll(async () => {
    t = await openApiServer("pglite");
  }, 60_000);
  afterAll(() => t?.close());

  it("answers forgot with 409 email_disabled, pointing at the operator's command", async () => {
    const c = new WebClient(t.base);
    expect((await c.session()).body.email_enabled).toBe(false);
    const res = await c.call("POST", "/api/v1/password/forgot", { email: randomEmail() });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("email_disabled");
    expect(res.body.error.message).toContain("clipd account reset-password");
  });
});
