// The payment providers without a database: the stripe provider's configuration checks, the manual
// provider's refusal, and Stripe's webhook signature as the official package checks it.
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../config/loader.js";
import { Conflict, Refused } from "../../daemon/domain/errors.js";
import { ManualProvider } from "../../daemon/payments/manual.js";
import { PaymentService } from "../../daemon/payments/service.js";
import { StripeEvents } from "../../daemon/payments/stripe-events.js";
import { stripeConfigProblem } from "../../daemon/payments/stripe.js";

const defaults = loadConfig({ env: {} }).payments;
const stripe = {
  ...defaults,
  provider: "stripe" as const,
  stripe_secret_key: "sk_test_x",
  stripe_webhook_secret: "whsec_x",
};

describe("payment providers", () => {
  it("the stripe provider needs its secret key, its webhook secret and a bare API origin", () => {
    expect(stripeConfigProblem(stripe)).toBeUndefined();
    expect(stripeConfigProblem({ ...stripe, stripe_secret_key: "" })).toMatch(
      /stripe_secret_key \(STRIPE_SECRET_KEY\) is empty/,
    );
    expect(stripeConfigProblem({ ...stripe, stripe_webhook_secret: "" })).toMatch(/stripe_webhook_secret/);
    expect(stripeConfigProblem({ ...stripe, stripe_api_base: "http://127.0.0.1:9/v1" })).toMatch(
      /bare http\(s\) origin/,
    );
    expect(stripeConfigProblem({ ...stripe, stripe_api_base: "http://127.0.0.1:9" })).toBeUndefined();
    // A clipd set to stripe without its secrets does not start.
    expect(() => new PaymentService({ config: { ...stripe, stripe_secret_key: "" } } as any)).toThrow(
      /stripe_secret_key/,
    );
  });

  it("manual is the default; it describes the operator's command and refuses checkout naming it", async () => {
    expect(defaults.provider).toBe("manual");
    const m = new ManualProvider(defaults);
    expect(m.view("acc-1")).toMatchObject({
      name: "manual",
      plan_checkout: false,
      instruction: expect.stringContaining("clipd credit add --account acc-1 --cents <cents>"),
    });
    const err = await m.checkout({ kind: "pack", cents: 1000 }, { accountId: "acc-1" }).catch((e) => e);
    expect(err).toBeInstanceOf(Conflict);
    expect(err).toMatchObject({
      code: "manual_provider",
      context: { command: "clipd credit add --account acc-1 --cents <cents>" },
    });
  });

  it("takes only events signed with the endpoint's secret within 5 minutes", async () => {
    // Nothing here reaches the database: a refused event is refused before, an ignored type never gets there.
    const events = new StripeEvents({
      db: {} as any,
      billing: {} as any,
      provider: {} as any,
      webhookSecret: "whsec_x",
    });
    const payload = JSON.stringify({
      id: "evt_1",
      object: "event",
      type: "invoice.paid",
      created: 1,
      data: { object: {} },
    });
    const sign = (o: { secret?: string; timestamp?: number } = {}) =>
      Stripe.webhooks.generateTestHeaderString({
        payload,
        secret: o.secret ?? "whsec_x",
        ...(o.timestamp ? { timestamp: o.timestamp } : {}),
      });
    await expect(events.receive(Buffer.from(payload), sign())).resolves.toEqual({
      received: true,
      handled: false,
      duplicate: false,
    });
    for (const header of [
      undefined,
      "",
      "t=1,v1=abc",
      sign({ secret: "whsec_other" }),
      sign({ timestamp: Math.floor(Date.now() / 1000) - 600 }),
    ]) {
      const err = await events.receive(Buffer.from(payload), header).catch((e) => e);
      expect(err).toBeInstanceOf(Refused);
      expect(err).toMatchObject({ code: "bad_signature", context: { field: "Stripe-Signature" } });
    }
    // One byte changed after signing.
    const err = await events
      .receive(Buffer.from(payload.replace("invoice.paid", "invoice.paic")), sign())
      .catch((e) => e);
    expect(err).toMatchObject({ code: "bad_signature" });
  });
});
