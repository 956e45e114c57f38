// The manual payment provider (the self-hosted default): the billing page says an operator adds
// credit, a checkout is refused naming the command, and the real `clipd credit add` (the built CLI,
// beside a running daemon) changes the balance the page shows. On PGlite the CLI goes through the
// daemon's ops route; on PostgreSQL it writes to the database itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";
import { runClipd } from "../helpers/cli.js";
import { WebClient } from "../helpers/web.js";

describe.each(testBackends())("payments with the manual provider (%s)", (backend) => {
  let s: ApiServer;
  beforeAll(async () => {
    s = await openApiServer(backend);
  }, 120_000);
  afterAll(() => s?.close());

  it("shows the operator's command, refuses checkout with 409 manual_provider, and sees clipd credit add", async () => {
    const web = new WebClient(s.base);
    await web.signUp();
    const { rows } = await s.app.db.query(`select id from accounts where email = $1`, [web.email]);
    const accountId: string = rows[0].id;
    const command = `clipd credit add --account ${accountId} --cents`;

    const before = await web.call("GET", "/api/v1/billing");
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      balance: { credit_cents: 0, below_zero: false },
      plan: { on: false, api_episodes_per_month: 5, api_episodes_used: 0 },
      use: [],
      ledger: [],
    });
    expect(before.body.provider).toMatchObject({
      name: "manual",
      packs_cents: [1000, 2500, 5000, 10000],
      plan_cents_per_month: 1499,
      plan_checkout: false,
    });
    expect(before.body.provider.instruction).toContain(command);
    expect(before.body.month).toMatch(/^\d{4}-\d{2}$/);

    for (const body of [{ pack_cents: 1000 }, { plan: true }]) {
      const refused = await web.call("POST", "/api/v1/billing/checkout", body);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: "manual_provider", provider: "manual" });
      expect(refused.body.error.message).toContain(command);
    }
    // Not signed in: the billing calls are the session's.
    expect((await new WebClient(s.base).call("GET", "/api/v1/billing")).status).toBe(401);
    // No Stripe here: its webhook route has nothing to take.
    const hook = await fetch(`${s.base}/webhooks/stripe`, {
      method: "POST",
      headers: { "stripe-signature": "t=1,v1=00" },
      body: "{}",
    });
    expect(hook.status).toBe(404);

    const cli = await runClipd(
      ["credit", "add", "--account", accountId, "--cents", "700"],
      { ...s.env, PORT: new URL(s.base).port },
      { timeoutMs: 60_000 },
    );
    expect(cli.code, cli.output).toBe(0);
    expect(JSON.parse(cli.output.trim().split("\n").pop()!)).toMatchObject({
      account_id: accountId,
      credit_cents: 700,
    });
    const after = await web.call("GET", "/api/v1/billing");
    expect(after.body.balance).toEqual({ credit_cents: 700, below_zero: false });
    expect(after.body.ledger).toEqual([expect.objectContaining({ cents: 700, kind: "credit" })]);
  });
});
