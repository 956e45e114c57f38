// Sign-in over real HTTP: one 401 for a wrong address and a wrong password, taking about the same
// time; failed sign-ins limited per account and per client address (shared in the database);
// accounts the admin CLI made have no password until `clipd account reset-password` gives one.
import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../../daemon/account/admin.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";
import { repoRoot } from "../helpers/cli.js";
import { randomEmail, TEST_PASSWORD, WebClient } from "../helpers/web.js";

/** Runs the built CLI with `stdin` piped in; resolves with its exit code and output. */
function clipd(
  args: string[],
  env: NodeJS.ProcessEnv,
  stdin = "",
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(repoRoot, "dist", "daemon", "boot", "main.js"), ...args], {
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => resolve({ code, out, err }));
    child.stdin.end(stdin);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe.each(testBackends())("web sign-in on %s", (backend) => {
  let t: ApiServer;
  beforeAll(async () => {
    t = await openApiServer(backend, {
      web: {
        signin_free_attempts: 3,
        signin_backoff_seconds: 600,
        signin_attempts_per_address: 5,
        signin_window_minutes: 10,
      },
    });
  }, 60_000);
  afterAll(() => t?.close());
  const clearAddress = () => t.app.db.query(`delete from signin_failures where subject like 'addr:%'`);

  it("answers a wrong address and a wrong password alike, in about the same time", async () => {
    const c = new WebClient(t.base);
    await c.signUp();
    const anon = new WebClient(t.base);
    await anon.session();
    const times = { unknown: [] as number[], wrong: [] as number[] };
    for (let i = 0; i < 2; i++) {
      for (const [kind, email] of [
        ["unknown", randomEmail("nobody")],
        ["wrong", c.email!],
      ] as const) {
        const start = performance.now();
        const res = await anon.call("POST", "/api/v1/signin", { email, password: "not the password" });
        times[kind].push(performance.now() - start);
        expect(res.status).toBe(401);
        expect(res.body.error).toEqual({
          code: "invalid_credentials",
          message: "the e-mail address or the password is wrong",
        });
      }
    }
    // Both spend one argon2id verification: an unknown address is not answered at once.
    expect(median(times.unknown)).toBeGreaterThan(median(times.wrong) * 0.3);
    await clearAddress();
  });

  it("holds failed sign-ins per account and address, then per address, till the window ends", async () => {
    await clearAddress(); // the address's count starts empty even when the test before this one failed
    const a = new WebClient(t.base);
    await a.signUp();
    const anon = new WebClient(t.base);
    await anon.session();
    for (let i = 0; i < 3; i++)
      expect((await anon.call("POST", "/api/v1/signin", { email: a.email, password: "wrong password" })).status).toBe(
        401,
      );
    const limited = await anon.call("POST", "/api/v1/signin", { email: a.email, password: TEST_PASSWORD });
    expect(limited.status).toBe(429); // even the right password waits
    expect(limited.body.error).toMatchObject({ code: "rate_limited", per: "account and address", limit: 3 });
    expect(limited.body.error.retry_after).toBeGreaterThan(500);
    expect(limited.body.error.retry_after).toBeLessThanOrEqual(600);

    // Two more failures for another address make five from this client address.
    const b = new WebClient(t.base);
    await b.signUp();
    for (let i = 0; i < 2; i++)
      expect((await anon.call("POST", "/api/v1/signin", { email: b.email, password: "wrong password" })).status).toBe(
        401,
      );
    const byAddress = await anon.call("POST", "/api/v1/signin", { email: b.email, password: TEST_PASSWORD });
    expect(byAddress.status).toBe(429);
    expect(byAddress.body.error).toMatchObject({ code: "rate_limited", per: "address", limit: 5 });

    await t.app.db.query(`update signin_failures set failed_at = now() - interval '11 minutes'`);
    expect((await anon.signIn(a.email, TEST_PASSWORD)).status).toBe(200);
  });

  it("refuses an admin-made account without a password until clipd account reset-password sets one", async () => {
    await clearAddress();
    const email = randomEmail("admin");
    const made = await runAdmin(t.app.accounts, "account.create", { email });
    const c = new WebClient(t.base);
    expect((await c.signIn(email, TEST_PASSWORD)).status).toBe(401);
    await c.session();
    const taken = await c.call("POST", "/api/v1/signup", { email, password: TEST_PASSWORD });
    expect(taken.body.error.code).toBe("email_taken");

    // PostgreSQL: the CLI opens the shared database. PGlite: the server holds it, so the CLI goes
    // through the server's ops route (its port, the token in the data folder).
    const env = { ...t.env, PORT: String(new URL(t.base).port) };
    const short = await clipd(["account", "reset-password", "--email", email, "--password", "short"], env);
    expect(short.code).toBe(2);
    expect(short.err).toMatch(/10 to 256 characters/);
    const piped = await clipd(
      ["account", "reset-password", "--email", email.toUpperCase()],
      env,
      "a piped passphrase\n",
    );
    expect(piped.err).toBe("");
    expect(piped.code).toBe(0);
    expect(JSON.parse(piped.out)).toEqual({
      account_id: made.account_id,
      email,
      password_set: true,
      sessions_ended: true,
    });
    expect(piped.out + piped.err).not.toContain("a piped passphrase");
    expect((await c.signIn(email, "a piped passphrase")).status).toBe(200);

    const other = new WebClient(t.base);
    expect((await other.signIn(email, "a piped passphrase")).status).toBe(200);
    const flag = await clipd(
      ["account", "reset-password", "--email", email, "--password", "a flagged passphrase"],
      env,
    );
    expect(flag.code).toBe(0);
    expect((await c.call("GET", "/api/v1/account")).status).toBe(401); // its sessions ended
    expect((await other.call("GET", "/api/v1/account")).status).toBe(401);
    const missing = await clipd(
      ["account", "reset-password", "--email", randomEmail("ghost"), "--password", "a flagged passphrase"],
      env,
    );
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/no live account has the e-mail address/);
  }, 60_000);
});
