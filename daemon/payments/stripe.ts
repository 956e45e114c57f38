/**
 * The Stripe provider: Checkout Sessions for credit packs (mode payment, an ad-hoc price of the
 * pack's cents) and for the plan (mode subscription, the configured `stripe_plan_price`). The
 * outcome comes later through Stripe's webhook (stripe-events.ts); nothing is credited here.
 *
 * It calls Stripe through the official `stripe` package rather than plain fetch: the package
 * already verifies webhook signatures for us, and it encodes Stripe's nested form parameters,
 * sends idempotency keys and retries network failures the way Stripe documents. Its host, port and
 * protocol come from `payments.stripe_api_base` when set (tests point it at a fake on loopback).
 */
import Stripe from "stripe";
import { LimitReached } from "../domain/errors.js";
import type {
  CheckoutContext,
  CheckoutRequest,
  OpenedCheckout,
  PaymentProvider,
  PaymentsConfig,
  ProviderView,
} from "./provider.js";

/** Why a configuration cannot run the stripe provider, or undefined when it can. */
export function stripeConfigProblem(c: PaymentsConfig): string | undefined {
  if (!c.stripe_secret_key)
    return "payments.provider is stripe but payments.stripe_secret_key (STRIPE_SECRET_KEY) is empty";
  if (!c.stripe_webhook_secret)
    return "payments.provider is stripe but payments.stripe_webhook_secret (STRIPE_WEBHOOK_SECRET) is empty";
  if (c.stripe_api_base && !/^https?:\/\/[^/]+\/?$/.test(c.stripe_api_base))
    return `payments.stripe_api_base must be a bare http(s) origin, not "${c.stripe_api_base}"`;
  return undefined;
}

export function stripeClient(c: PaymentsConfig): Stripe {
  const base = c.stripe_api_base ? new URL(c.stripe_api_base) : undefined;
  return new Stripe(c.stripe_secret_key, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === "https:" ? 443 : 80),
          protocol: base.protocol.replace(":", "") as "http" | "https",
        }
      : {}),
  });
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(cents % 100 ? 2 : 0)}`;

export class StripeProvider implements PaymentProvider {
  readonly name = "stripe" as const;

  constructor(
    private readonly config: PaymentsConfig,
    readonly client: Stripe = stripeClient(config),
  ) {}

  view(): ProviderView {
    return {
      name: this.name,
      packs_cents: [...this.config.packs_cents],
      plan_cents_per_month: this.config.plan_cents_per_month,
      plan_checkout: Boolean(this.config.stripe_plan_price),
    };
  }

  async checkout(req: CheckoutRequest, ctx: CheckoutContext & { customerId?: string }): Promise<OpenedCheckout> {
    try {
      // One customer per account: the idempotency key makes two racing first checkouts share it.
      const customerId =
        ctx.customerId ??
        (
          await this.client.customers.create(
            { email: ctx.email, metadata: { clipd_account: ctx.accountId } },
            { idempotencyKey: `clipd-customer-${ctx.accountId}` },
          )
        ).id;
      const metadata = {
        clipd_account: ctx.accountId,
        clipd_kind: req.kind,
        ...(req.kind === "pack" ? { clipd_pack_cents: String(req.cents) } : {}),
      };
      const back = `${ctx.siteOrigin}/billing?checkout=`;
      const common = {
        customer: customerId,
        client_reference_id: ctx.accountId,
        metadata,
        success_url: `${back}success`,
        cancel_url: `${back}cancelled`,
      };
      const session =
        req.kind === "pack"
          ? await this.client.checkout.sessions.create({
              ...common,
              mode: "payment",
              line_items: [
                {
                  quantity: 1,
                  price_data: {
                    currency: "usd",
                    unit_amount: req.cents,
                    product_data: { name: `clipd credit, ${dollars(req.cents)}` },
                  },
                },
              ],
              payment_intent_data: { metadata },
            })
          : await this.client.checkout.sessions.create({
              ...common,
              mode: "subscription",
              line_items: [{ quantity: 1, price: this.config.stripe_plan_price }],
              subscription_data: { metadata },
            });
      if (!session.url) throw new Error(`Stripe opened checkout ${session.id} without a url`);
      return { id: session.id, url: session.url, customerId };
    } catch (err) {
      throw new LimitReached(
        "capacity",
        "payment_provider_unavailable",
        "Stripe did not open a checkout; nothing was charged, try again in a moment",
        { cause: err },
      );
    }
  }

  /** The checkout session that took a payment, for a refund whose checkout event has not come yet. */
  async sessionOfPayment(paymentIntent: string): Promise<Stripe.Checkout.Session | undefined> {
    const list = await this.client.checkout.sessions.list({ payment_intent: paymentIntent, limit: 1 });
    return list.data[0];
  }
}
