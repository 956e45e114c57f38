// The account page's calls over real HTTP: the account with its clip defaults, a password change
// that ends the other sessions, and deleting the account (keys, webhooks, sessions, the address).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";
import { AccountRemoval } from "../../daemon/web/removal.js";
import { TEST_PASSWORD, WebClient } from "../helpers/web.js";

describe.each(testBackends())("web account on %s", (backend) => {
  let t: ApiServer;
  beforeAll(async () => {
    t = await openApiServer(backend);
  }, 60_000);
  afterAll(() => t?.close());

  it("shows the account with the service's clip defaults", async () => {
    const c = new WebClient(t.base);
    await c.signUp();
    const res = await c.call("GET", "/api/v1/account");
    expect(res.status).toBe(200);
    expect(res.body.account).toMatchObject({
      email: c.email,
      email_verified: false,
      plan: false,
      credit_cents: 0,
      billing_review: false,
    });
    expect(res.body.clip_defaults).toMatchObject({ caption_size: expect.any(String), fit: expect.any(String) });
  });

  it("changes the password with the current one, ending the account's other sessions", async () => {
    const c = new WebClient(t.base);
    await c.signUp();
    const other = new WebClient(t.base);
    await other.signIn(c.email, c.password);
    const wrong = await c.call("POST", "/api/v1/account/password", {
      current_password: "not it at all",
      new_password: "a newer passphrase",
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toMatchObject({ code: "invalid_credentials", field: "current_password" });
    const short = await c.call("POST", "/api/v1/account/password", {
      current_password: TEST_PASSWORD,
      new_password: "short",
    });
    expect(short.body.error.field).toBe("new_password");
    const ok = await c.call("POST", "/api/v1/account/password", {
      current_password: TEST_PASSWORD,
      new_password: "a newer passphrase",
    });
    expect(ok.status).toBe(200);
    expect((await c.call("GET", "/api/v1/account")).status).toBe(200);
    expect((await other.call("GET", "/api/v1/account")).status).toBe(401);
    expect((await new WebClient(t.base).signIn(c.email, "a newer passphrase")).status).toBe(200);
  });

  it("deletes the account at once: keys revoked, webhooks off, sessions ended, the address free", async () => {
    const c = new WebClient(t.base);
    const up = await c.signUp();
    const id = up.body.account.id;
    const key = (await c.createKey({ scopes: ["clips.read", "webhooks"] })).body.key;
    expect((await t.call(key, "GET", "/api/v1/me")).status).toBe(200);
    await t.app.db.query(
      `insert into webhooks (id, account_id, url, events, secrets) values ($1, ` +
        `$2, 'https://example.com/h', '["episode.ready"]', '[]')`,
      [randomUUID(), id],
    );
    const other = new WebClient(t.base);
    await other.signIn(c.email, c.password);

    const wrong = await c.call("DELETE", "/api/v1/account", { password: "not the password" });
    expect(wrong.status).toBe(401);
    const gone = await c.call("DELETE", "/api/v1/account", { password: TEST_PASSWORD });
    expect(gone.status).toBe(200);
    expect(Date.parse(gone.body.data_removed_after) - Date.now()).toBeGreaterThan(29 * 86400_000);
    expect(gone.setCookies.join()).toMatch(/clipd_session=; .*Max-Age=0/);

    expect((await t.call(key, "GET", "/api/v1/me")).status).toBe(401);
    expect((await other.call("GET", "/api/v1/account")).status).toBe(401);
    const { rows } = await t.app.db.query(`select enabled, disabled_reason from webhooks where account_id = $1`, [id]);
    expect(rows).toEqual([{ enabled: false, disabled_reason: "the account was deleted" }]);
    expect((await new WebClient(t.base).signIn(c.email, c.password)).status).toBe(401);
    const again = new WebClient(t.base);
    const fresh = await again.signUp(c.email, TEST_PASSWORD);
    expect(fresh.body.account.id).not.toBe(id);
  });

  it(
    "removes a deleted account's data once its removal is due, keeping the " + "anonymised row and its ledger",
    async () => {
      const c = new WebClient(t.base);
      const id = (await c.signUp()).body.account.id;
      await t.app.accounts.addCredit(id, 300, "a pack");
      const q = (sql: string, params: unknown[] = []) => t.app.db.query(sql, params);
      const runId = randomUUID();
      const hook = randomUUID();
      await q(
        `insert into runs (id, pipeline, input, state, step_count, plan, origin) ` +
          `values ($1, 'api-episode', $2, 'succeeded', 1, '{}', 'web')`,
        [runId, JSON.stringify({ account_id: id })],
      );
      await q(
        `insert into episodes (id, account_id, name, status, run_id, upload) values ($1, $2, 'ep', 'ready', $3, $4)`,
        [randomUUID(), id, runId, JSON.stringify({ key: `uploads/${id}/a.wav`, name: "a.wav" })],
      );
      await q(`insert into events (id, type, run_id, account_id, data) values ($1, 'episode.ready', $2, $3, '{}')`, [
        randomUUID(),
        runId,
        id,
      ]);
      await q(
        `insert into webhooks (id, account_id, url, events, secrets) values ($1, ` +
          `$2, 'https://example.com/h', '["episode.ready"]', '[]')`,
        [hook, id],
      );
      await q(
        `insert into deliveries (id, kind, webhook_id, event_type, payload) values ($1, 'webhook', $2, 'ping', '{}')`,
        [randomUUID(), hook],
      );
      await t.app.storage.write(`runs/${runId}/clip-1.mp4`, "media");
      await t.app.storage.write(`uploads/${id}/a.wav`, "audio");
      expect((await c.call("DELETE", "/api/v1/account", { password: TEST_PASSWORD })).status).toBe(200);

      const removal = t.app.container.resolve(AccountRemoval);
      expect(await removal.sweep()).not.toContain(id); // not due for 30 days
      await q(`update accounts set removal_due_at = now() - interval '1 minute' where id = $1`, [id]);
      expect(await removal.sweep()).toContain(id);
      const count = async (table: string, where: string) =>
        (await q(`select count(*)::int as n from ${table} where ${where}`, [id])).rows[0].n;
      for (const table of ["episodes", "webhooks", "events", "api_keys", "web_sessions"])
        expect(await count(table, "account_id = $1"), table).toBe(0);
      expect(await count("runs", "input->>'account_id' = $1")).toBe(0);
      expect((await q(`select count(*)::int as n from deliveries where webhook_id = $1`, [hook])).rows[0].n).toBe(0);
      expect(await t.app.storage.exists(`runs/${runId}/clip-1.mp4`)).toBe(false);
      expect(await t.app.storage.exists(`uploads/${id}/a.wav`)).toBe(false);
      const [row] = (await q(`select email, password_hash, removed_at from accounts where id = $1`, [id])).rows;
      expect(row.email).toBe(`removed-${id}@removed.invalid`);
      expect(row.password_hash).toBeNull();
      expect(row.removed_at).not.toBeNull();
      expect(await count("ledger", "account_id = $1")).toBe(1); // kept for accounting
      expect(await removal.sweep()).not.toContain(id); // once
    },
  );
});
