/**
 * The billing page's service: what the account has and has used (the view), buying credit or the
 * plan through the configured provider (checkout), and the provider's webhook. It holds no price
 * rule of its own: balances, the plan allowance and use come from BillingService and the ledger.
 */
import type { Logger } from "pino";
import type { AccountService } from "../account/accounts.js";
import type { BillingService } from "../account/billing.js";
import { Conflict, NotFound, Refused } from "../domain/errors.js";
import type { Db } from "../store/db.js";
import { ManualProvider } from "./manual.js";
import type { CheckoutRequest, PaymentProvider, PaymentsConfig, ProviderView } from "./provider.js";
import { StripeEvents, type EventOutcome } from "./stripe-events.js";
import { stripeConfigProblem, StripeProvider } from "./stripe.js";

/** Ledger rows the billing page shows, newest first. */
export const LEDGER_ROWS = 50;

export interface BillingView {
  balance: { credit_cents: number; below_zero: boolean };
  plan: { on: boolean; cents_per_month: number; api_episodes_per_month: number; api_episodes_used: number };
  month: string;
  use: Array<{ operation: string; count: number; cents: number }>;
  ledger: Array<{ id: string; at: string; cents: number; kind: string; note: string | null }>;
  provider: ProviderView;
}

export interface PaymentDeps {
  db: Db;
  accounts: AccountService;
  billing: BillingService;
  config: PaymentsConfig;
  log: Logger;
  /** Tests may hand in a provider; by default the one `config.provider` names. */
  provider?: PaymentProvider;
}

export class PaymentService {
  readonly provider: PaymentProvider;
  private readonly stripeEvents?: StripeEvents;

  constructor(private readonly deps: PaymentDeps) {
    if (deps.config.provider === "stripe") {
      const problem = stripeConfigProblem(deps.config);
      if (problem) throw new Error(problem);
    }
    this.provider =
      deps.provider ??
      (deps.config.provider === "stripe" ? new StripeProvider(deps.config) : new ManualProvider(deps.config));
    if (this.provider instanceof StripeProvider) {
      this.stripeEvents = new StripeEvents({
        db: deps.db,
        billing: deps.billing,
        provider: this.provider,
        webhookSecret: deps.config.stripe_webhook_secret,
      });
    }
  }

  async view(accountId: string): Promise<BillingView> {
    const { db, billing } = this.deps;
    const account = await this.deps.accounts.getAccount(accountId);
    if (!account) throw new NotFound("not_found", `account ${accountId} does not exist`);
    const usage = await billing.usage(db, accountId);
    const { rows } = await db.query(
      `select id, created_at, cents, kind, note from ledger where account_id ` +
        `= $1 order by created_at desc, id limit $2`,
      [accountId, LEDGER_ROWS],
    );
    const { rows: month } = await db.query(`select to_char(date_trunc('month', now()), 'YYYY-MM') as m`);
    return {
      balance: { credit_cents: account.credit_cents, below_zero: account.credit_cents < 0 },
      plan: {
        on: account.plan,
        cents_per_month: this.deps.config.plan_cents_per_month,
        api_episodes_per_month: usage.plan_episodes_included,
        api_episodes_used: usage.plan_episodes_used,
      },
      month: month[0].m,
      use: await billing.monthUse(db, accountId),
      ledger: rows.map((r) => ({
        id: r.id,
        at: new Date(r.created_at).toISOString(),
        cents: Number(r.cents),
        kind: r.kind,
        note: r.note ?? null,
      })),
      provider: this.provider.view(accountId),
    };
  }

  /** Opens a checkout for a pack of `pack_cents` or for the plan; answers where to send the buyer. */
  async checkout(
    accountId: string,
    input: { pack_cents?: number; plan?: boolean },
    siteOrigin: string,
  ): Promise<{ checkout_url: string }> {
    const req = this.request(input);
    if (req.kind === "plan" && this.provider.name === "stripe" && !this.provider.view(accountId).plan_checkout) {
      throw new Conflict(
        "plan_unavailable",
        "the plan cannot be bought here: payments.stripe_plan_price is not set on this clipd",
        { context: { field: "plan" } },
      );
    }
    const account = await this.deps.accounts.getAccount(accountId);
    if (!account) throw new NotFound("not_found", `account ${accountId} does not exist`);
    const known = await this.deps.db.query(
      `select customer_id from payment_customers where account_id = $1 and provider = $2`,
      [accountId, this.provider.name],
    );
    let opened;
    try {
      opened = await this.provider.checkout(req, {
        accountId,
        email: account.email,
        siteOrigin,
        customerId: known.rows[0]?.customer_id,
      });
    } catch (err) {
      const cause = (err as { cause?: { message?: string; type?: string } }).cause;
      if (cause)
        this.deps.log.warn(
          { provider: this.provider.name, type: cause.type, reason: cause.message },
          "checkout failed at the payment provider",
        );
      throw err;
    }
    await this.deps.db.transaction(async (tx) => {
      await tx.query(
        `insert into payment_customers (account_id, provider, customer_id) values ($1, $2, $3) on conflict do nothing`,
        [accountId, this.provider.name, opened.customerId],
      );
      await tx.query(
        `insert into payment_checkouts (id, account_id, provider, kind, cents) values ($1, $2, $3, $4, $5)`,
        [
          opened.id,
          accountId,
          this.provider.name,
          req.kind,
          req.kind === "pack" ? req.cents : this.deps.config.plan_cents_per_month,
        ],
      );
    });
    return { checkout_url: opened.url };
  }

  private request(input: { pack_cents?: number; plan?: boolean }): CheckoutRequest {
    const packs = this.deps.config.packs_cents;
    const hasPack = input.pack_cents !== undefined;
    if (hasPack === (input.plan === true)) {
      throw new Refused("invalid_request", "send either pack_cents (a credit pack) or plan: true (the monthly plan)", {
        context: { field: hasPack ? "plan" : "pack_cents", packs_cents: packs },
      });
    }
    if (!hasPack) return { kind: "plan" };
    if (!packs.includes(input.pack_cents!)) {
      throw new Refused("invalid_request", `pack_cents must be one of the packs offered: ${packs.join(", ")}`, {
        context: { field: "pack_cents", packs_cents: packs },
      });
    }
    return { kind: "pack", cents: input.pack_cents! };
  }

  /** Stripe's webhook delivery; 404 when this clipd does not take payments through Stripe. */
  async stripeWebhook(raw: Buffer, signature: string | undefined): Promise<EventOutcome> {
    if (!this.stripeEvents)
      throw new NotFound("not_found", "this clipd takes no Stripe payments (payments.provider is not stripe)");
    try {
      return await this.stripeEvents.receive(raw, signature);
    } catch (err) {
      // A wrong payments.stripe_webhook_secret shows here first: say so in the log (never the secret).
      if (err instanceof Refused)
        this.deps.log.warn({ code: err.code, bytes: raw.byteLength }, "Stripe webhook delivery refused");
      throw err;
    }
  }
}
