// The stripe payment provider end to end: the billing page's calls through a signed-in browser
// session (/web), clipd's Stripe adapter against the fake Stripe API on loopback, and Stripe's
// signed webhook deliveries to POST /webhooks/stripe. The only fake is Stripe itself.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";
import { WebClient } from "../helpers/web.js";
import { startFakeStripe, type FakeStripe } from "../fakes/fake-stripe.js";

describe.each(testBackends())("payments with the stripe provider, against a fake Stripe API (%s)", (backend) => {
  let s: ApiServer;
  let stripe: FakeStripe;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    s = await openApiServer(backend, {
      payments: {
        provider: "stripe",
        stripe_secret_key: "sk_test_fake",
        stripe_webhook_secret: stripe.secret,
        stripe_plan_price: "price_fake_plan",
        stripe_api_base: stripe.base,
      },
    });
    stripe.target = `${s.base}/webhooks/stripe`;
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await stripe?.close();
  });

  /** A new signed-in site user and its account id. */
  async function buyer(): Promise<{ web: WebClient; accountId: string }> {
    const web = new WebClient(s.base);
    await web.signUp();
    const { rows } = await s.app.db.query(`select id from accounts where email = $1`, [web.email]);
    return { web, accountId: rows[0].id };
  }
  const billing = async (web: WebClient) => {
    const a = await web.call("GET", "/api/v1/billing");
    expect(a.status).toBe(200);
    return a.body;
  };
  /** Opens a checkout through the site and returns the fake's session id. */
  async function checkout(web: WebClient, body: Record<string, unknown>): Promise<string> {
    const a = await web.call("POST", "/api/v1/billing/checkout", body);
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    return new URL(a.body.checkout_url).pathname.split("/").pop()!;
  }

  it(
    "opens a Checkout Session for a pack; its paid event adds the credit once, " + "whatever is delivered again",
    async () => {
      const { web, accountId } = await buyer();
      const before = await billing(web);
      expect(before).toMatchObject({
        balance: { credit_cents: 0, below_zero: false },
        plan: { on: false, api_episodes_per_month: 5, api_episodes_used: 0 },
        ledger: [],
      });
      expect(before.provider).toEqual({
        name: "stripe",
        packs_cents: [1000, 2500, 5000, 10000],
        plan_cents_per_month: 1499,
        plan_checkout: true,
      });

      const sent = stripe.requests.length;
      const id = await checkout(web, { pack_cents: 2500 });
      const calls = stripe.requests.slice(sent);
      expect(calls.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /v1/customers", "POST /v1/checkout/sessions"]);
      expect(calls[0]).toMatchObject({
        auth: "Bearer sk_test_fake",
        idempotencyKey: `clipd-customer-${accountId}`,
        form: { email: web.email, metadata: { clipd_account: accountId } },
      });
      expect(calls[1]!.form).toMatchObject({
        mode: "payment",
        client_reference_id: accountId,
        metadata: { clipd_account: accountId, clipd_kind: "pack", clipd_pack_cents: "2500" },
        line_items: { 0: { quantity: "1", price_data: { currency: "usd", unit_amount: "2500" } } },
        success_url: `${s.base}/billing?checkout=success`,
      });

      const paid = await stripe.complete(id);
      expect(paid).toMatchObject({ status: 200, body: { received: true, handled: true, duplicate: false } });
      const after = await billing(web);
      expect(after.balance).toEqual({ credit_cents: 2500, below_zero: false });
      expect(after.ledger).toEqual([expect.objectContaining({ cents: 2500, kind: "pack" })]);

      // The same delivery again, and another event for the same checkout: nothing changes.
      expect(await stripe.send(paid.event)).toMatchObject({ status: 200, body: { duplicate: true } });
      expect((await stripe.complete(id, { type: "checkout.session.async_payment_succeeded" })).status).toBe(200);
      expect((await billing(web)).ledger).toHaveLength(1);
      expect((await s.app.accounts.getAccount(accountId))!.credit_cents).toBe(2500);

      // A second checkout of the account reuses its Stripe customer.
      const sent2 = stripe.requests.length;
      await checkout(web, { pack_cents: 1000 });
      expect(stripe.requests.slice(sent2).map((r) => r.path)).toEqual(["/v1/checkout/sessions"]);
    },
  );

  it("credits a pack once when its events arrive at the same time, repeated and under two ids", async () => {
    const { web, accountId } = await buyer();
    const id = await checkout(web, { pack_cents: 1000 });
    const paid = await stripe.complete(id);
    const again = await Promise.all([
      ...Array.from({ length: 4 }, () => stripe.send(paid.event)),
      ...Array.from({ length: 2 }, () => stripe.complete(id, { type: "checkout.session.async_payment_succeeded" })),
    ]);
    expect(again.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect((await s.app.accounts.getAccount(accountId))!.credit_cents).toBe(1000);
    const racing = await checkout(web, { pack_cents: 2500 });
    stripe.pay(racing);
    const both = await Promise.all([
      stripe.complete(racing),
      stripe.complete(racing, { type: "checkout.session.async_payment_succeeded" }),
      stripe.refund(racing, 500),
    ]);
    expect(both.map((a) => a.status)).toEqual([200, 200, 200]);
    expect((await s.app.accounts.getAccount(accountId))!.credit_cents).toBe(1000 + 2500 - 500);
    const { rows } = await s.app.db.query(
      `select kind, sum(cents)::int as cents, count(*)::int as n from ledger ` +
        `where account_id = $1 group by kind order by kind`,
      [accountId],
    );
    expect(rows).toEqual([
      { kind: "pack", cents: 3500, n: 2 },
      { kind: "pack_refund", cents: -500, n: 1 },
    ]);
  });

  it("credits a paid checkout that clipd stopped before remembering, from the session's metadata", async () => {
    const { web, accountId } = await buyer();
    const id = await checkout(web, { pack_cents: 1000 });
    await s.app.db.query(`delete from payment_checkouts where id = $1`, [id]);
    expect((await stripe.complete(id)).body).toMatchObject({ handled: true, duplicate: false });
    expect((await s.app.accounts.getAccount(accountId))!.credit_cents).toBe(1000);
    // A session of some other clipd on the same Stripe account (an account unknown here) is ignored.
    const other = await checkout(web, { pack_cents: 1000 });
    await s.app.db.query(`delete from payment_checkouts where id = $1`, [other]);
    stripe.sessions.get(other).metadata.clipd_account = randomUUID();
    expect((await stripe.complete(other)).status).toBe(200);
    expect((await s.app.accounts.getAccount(accountId))!.credit_cents).toBe(1000);
  });

  it("refuses a pack size not offered, both or neither of pack and plan, naming the field", async () => {
    const { web } = await buyer();
    const odd = await web.call("POST", "/api/v1/billing/checkout", { pack_cents: 1234 });
    expect(odd.status).toBe(400);
    expect(odd.body.error).toMatchObject({
      code: "invalid_request",
      field: "pack_cents",
      packs_cents: [1000, 2500, 5000, 10000],
    });
    expect(odd.body.error.message).toContain("1000, 2500, 5000, 10000");
    const both = await web.call("POST", "/api/v1/billing/checkout", { pack_cents: 1000, plan: true });
    expect(both.body.error).toMatchObject({ code: "invalid_request" });
    expect((await web.call("POST", "/api/v1/billing/checkout", {})).status).toBe(400);
    expect((await web.call("POST", "/api/v1/billing/checkout", { plan: false })).status).toBe(400);
  });

  it(
    "takes a refunded pack's credit back: spent credit leaves the balance below " +
      "zero and live calls stop until credit is added",
    async () => {
      const { web, accountId } = await buyer();
      const key = (await web.createKey({ mode: "live", scopes: ["clips.read", "clips.write"] })).body.key as string;
      const id = await checkout(web, { pack_cents: 1000 });
      await stripe.complete(id);
      // Spend part of it as an episode's clip search would (10 minutes of episode).
      const spent = await s.app.db.transaction((tx) => s.app.billing.chargeEpisode(tx, accountId, randomUUID(), 600));
      expect(spent.cents).toBeGreaterThan(0);

      const refund = await stripe.refund(id, 1000);
      expect(refund).toMatchObject({ status: 200, body: { handled: true, duplicate: false } });
      const view = await billing(web);
      expect(view.balance).toEqual({ credit_cents: -spent.cents, below_zero: true });
      expect(view.ledger.map((r: any) => [r.kind, r.cents])).toEqual([
        ["pack_refund", -1000],
        ["episode", -spent.cents],
        ["pack", 1000],
      ]);
      expect(view.use).toEqual([{ operation: "episodes", count: 1, cents: spent.cents }]);
      expect(await stripe.send(refund.event)).toMatchObject({ body: { duplicate: true } });

      // Live calls stop, through the API with a live key and through the site alike.
      const api = await s.call(key, "POST", "/api/v1/episodes", { file_name: "a.mp3" });
      expect(api.status).toBe(402);
      expect(api.body.error).toMatchObject({
        code: "balance_below_zero",
        credit_cents: -spent.cents,
        needed_cents: spent.cents,
      });
      expect((await web.call("POST", "/api/v1/episodes", { file_name: "a.mp3" })).body.error).toMatchObject({
        code: "balance_below_zero",
      });
      expect((await s.call(key, "GET", "/api/v1/episodes")).status).toBe(200);

      await s.app.accounts.addCredit(accountId, spent.cents + 100, "operator top-up");
      expect((await s.call(key, "POST", "/api/v1/episodes", { file_name: "a.mp3" })).status).toBe(202);
    },
  );

  it(
    "applies a refund that comes before its checkout's event: the pack is credited, " + "then taken back, once",
    async () => {
      const { web, accountId } = await buyer();
      const id = await checkout(web, { pack_cents: 5000 });
      stripe.pay(id);
      expect((await stripe.refund(id, 2000)).status).toBe(200); // partial: 2000 of 5000
      expect(stripe.requests.at(-1)).toMatchObject({
        method: "GET",
        path: "/v1/checkout/sessions",
        form: { payment_intent: stripe.sessions.get(id).payment_intent },
      });
      expect((await s.app.accounts.getAccount(accountId))!.credit_cents).toBe(3000);
      expect((await stripe.complete(id)).body).toMatchObject({ handled: true, duplicate: false });
      expect((await stripe.refund(id, 5000)).status).toBe(200); // the rest, as a cumulative amount
      const view = await billing(web);
      expect(view.balance.credit_cents).toBe(0);
      expect(view.ledger.map((r: any) => r.cents).sort()).toEqual([-2000, -3000, 5000].sort());
    },
  );

  it("turns the plan on with its subscription and follows the subscription's changes", async () => {
    const { web, accountId } = await buyer();
    const id = await checkout(web, { plan: true });
    expect(stripe.requests.at(-1)!.form).toMatchObject({
      mode: "subscription",
      line_items: { 0: { price: "price_fake_plan", quantity: "1" } },
      subscription_data: { metadata: { clipd_account: accountId } },
    });
    await stripe.complete(id);
    expect((await billing(web)).plan).toMatchObject({ on: true, cents_per_month: 1499 });
    const plan = async () => (await s.app.accounts.getAccount(accountId))!.plan;

    await stripe.subscription(id, "past_due"); // Stripe still retrying the card: kept on
    expect(await plan()).toBe(true);
    await stripe.subscription(id, "unpaid");
    expect(await plan()).toBe(false);
    const t = Math.floor(Date.now() / 1000) + 10;
    await stripe.subscription(id, "active", { created: t });
    expect(await plan()).toBe(true);
    await stripe.subscription(id, "unpaid", { created: t - 5 }); // older than what was applied: ignored
    expect(await plan()).toBe(true);
    await stripe.subscription(id, "", { deleted: true, created: t + 1 });
    expect(await plan()).toBe(false);
    expect((await billing(web)).ledger.map((r: any) => r.kind)).toEqual(["plan_off", "plan_on", "plan_off", "plan_on"]);
  });

  it("refuses a bad signature with 400 bad_signature, ignores unknown event types, and bounds the body", async () => {
    const { web, accountId } = await buyer();
    const id = await checkout(web, { pack_cents: 1000 });
    const event = {
      id: `evt_${randomUUID()}`,
      object: "event",
      type: "checkout.session.completed",
      created: Math.floor(Date.now() / 1000),
      data: { object: { ...stripe.pay(id) } },
    };
    for (const opts of [{ sign: "t=1,v1=00" }, { secret: "whsec_someone_else" }, { sign: null }]) {
      const a = await stripe.send(event, opts);
      expect(a.status).toBe(400);
      expect(a.body.error).toMatchObject({ code: "bad_signature", field: "Stripe-Signature" });
    }
    expect((await s.app.accounts.getAccount(accountId))!.credit_cents).toBe(0);
    expect(await stripe.send({ ...event, id: `evt_${randomUUID()}`, type: "invoice.paid" })).toMatchObject({
      status: 200,
      body: { handled: false },
    });
    const huge = await fetch(stripe.target, {
      method: "POST",
      headers: { "stripe-signature": "t=1,v1=00" },
      body: "x".repeat(300 * 1024),
    });
    expect(huge.status).toBe(413);
    expect((await stripe.send(event)).body).toMatchObject({ handled: true, duplicate: false });
    expect((await s.app.accounts.getAccount(accountId))!.credit_cents).toBe(1000);
  });

  it("answers 503 payment_provider_unavailable when Stripe fails, and remembers no checkout", async () => {
    const { web, accountId } = await buyer();
    stripe.failNext(3); // the first try and the package's two retries
    const a = await web.call("POST", "/api/v1/billing/checkout", { pack_cents: 1000 });
    expect(a.status).toBe(503);
    expect(a.body.error.code).toBe("payment_provider_unavailable");
    expect(
      (await s.app.db.query(`select count(*)::int as n from payment_checkouts where account_id = $1`, [accountId]))
        .rows[0].n,
    ).toBe(0);
  });
});
