/**
 * Stripe's webhook: what a paid, refunded or changed purchase does to the account. The signature
 * is checked with the official package (Stripe.webhooks.constructEvent: HMAC-SHA256 of the raw
 * body, in constant time, within 5 minutes of its timestamp). Each event is applied in one
 * transaction that also records its id in payment_events, so a second delivery changes nothing;
 * a pack is also credited once per checkout (its row goes open → paid under a row lock), whatever
 * event reports it. A paid checkout clipd has no row for (it stopped after Stripe opened it) is
 * taken from the metadata clipd gave the session. Credit moves only through BillingService.movePayment: a ledger row
 * beside the
 * balance change.
 *
 * - checkout.session.completed / async_payment_succeeded, paid: a pack adds its credit; the plan
 *   checkout records its subscription and turns the plan on.
 * - charge.refunded: the refunded part of a pack's payment is taken back (cumulative, capped at
 *   the pack); spent credit leaves the balance below zero and live calls stop until topped up.
 * - customer.subscription.updated / deleted: the plan is on while any subscription of the account
 *   is active, trialing or past_due (Stripe still retrying); an event older than the last one
 *   applied to that subscription is ignored, since Stripe does not promise order.
 * Other types are acknowledged and ignored.
 */
import Stripe from "stripe";
import type { BillingService } from "../account/billing.js";
import { Refused } from "../domain/errors.js";
import type { Db, Queryable } from "../store/db.js";
import type { StripeProvider } from "./stripe.js";

export type EventOutcome = { received: true; handled: boolean; duplicate: boolean };
const LIVE_SUBSCRIPTION = new Set(["active", "trialing", "past_due"]);

export class StripeEvents {
  constructor(
    private readonly deps: { db: Db; billing: BillingService; provider: StripeProvider; webhookSecret: string },
  ) {}

  /** Verifies and applies one delivery. Throws Refused (400 bad_signature) for a forged or stale one. */
  async receive(raw: Buffer, signature: string | undefined): Promise<EventOutcome> {
    if (!signature)
      throw new Refused("bad_signature", "the Stripe-Signature header is missing", {
        context: { field: "Stripe-Signature" },
      });
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(raw, signature, this.deps.webhookSecret);
    } catch (cause) {
      throw new Refused(
        "bad_signature",
        "the Stripe-Signature header does not sign this body with this endpoint's secret within 5 minutes",
        { context: { field: "Stripe-Signature" }, cause },
      );
    }
    const apply = await this.prepare(event);
    if (!apply) return { received: true, handled: false, duplicate: false };
    return this.deps.db.transaction(async (tx) => {
      const fresh = await tx.query(
        `insert into payment_events (id, type) values ($1, $2) on conflict (id) do nothing returning id`,
        [event.id, event.type],
      );
      if (!fresh.rows.length) return { received: true as const, handled: true, duplicate: true };
      await apply(tx);
      return { received: true as const, handled: true, duplicate: false };
    });
  }

  /** What an event does, as a step to run in its transaction; undefined for types not handled. */
  private async prepare(event: Stripe.Event): Promise<((tx: Queryable) => Promise<void>) | undefined> {
    switch (event.type) {
      case "checkout.session.completed":
      case "checkout.session.async_payment_succeeded": {
        const s = event.data.object;
        return (tx) => this.sessionPaid(tx, s);
      }
      case "charge.refunded": {
        const charge = event.data.object;
        const intent = typeof charge.payment_intent === "string" ? charge.payment_intent : charge.payment_intent?.id;
        if (!intent) return undefined;
        // A refund may come before its checkout's event: ask Stripe which checkout took the payment.
        const known = await this.deps.db.query(`select 1 from payment_checkouts where payment_intent = $1`, [intent]);
        const session = known.rows.length ? undefined : await this.deps.provider.sessionOfPayment(intent);
        return async (tx) => {
          if (session) await this.sessionPaid(tx, session);
          await this.refunded(tx, intent, charge.amount_refunded);
        };
      }
      case "customer.subscription.created":
      case "customer.subscription.updated":
      case "customer.subscription.deleted": {
        const sub = event.data.object;
        return (tx) =>
          this.subscriptionChanged(
            tx,
            sub,
            event.type === "customer.subscription.deleted" ? "canceled" : sub.status,
            event.created,
          );
      }
      default:
        return undefined;
    }
  }

  private async sessionPaid(tx: Queryable, s: Stripe.Checkout.Session): Promise<void> {
    if (s.payment_status === "unpaid") return; // an async payment method: wait for async_payment_succeeded
    const row = (await this.checkoutRow(tx, s.id)) ?? (await this.adopt(tx, s));
    if (!row || row.status !== "open") return; // not ours, or applied already
    const intent = typeof s.payment_intent === "string" ? s.payment_intent : (s.payment_intent?.id ?? null);
    const subscription = typeof s.subscription === "string" ? s.subscription : (s.subscription?.id ?? null);
    await tx.query(
      `update payment_checkouts set status = 'paid', paid_at = now(), payment_intent ` +
        `= $2, subscription_id = $3 where id = $1`,
      [s.id, intent, subscription],
    );
    if (row.kind === "pack") {
      const cents = Number(row.cents);
      await this.deps.billing.movePayment(
        tx,
        row.account_id,
        cents,
        "pack",
        s.id,
        `credit pack of ${cents} cents paid with Stripe`,
      );
      return;
    }
    if (subscription) {
      await tx.query(
        `insert into payment_subscriptions (id, account_id, status, event_created) ` +
          `values ($1, $2, 'active', 0) on conflict (id) do nothing`,
        [subscription, row.account_id],
      );
    }
    await this.planFollows(tx, row.account_id, subscription ?? s.id);
  }

  // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
  private async checkoutRow(tx: Queryable, id: string): Promise<any> {
    return (await tx.query(`select * from payment_checkouts where id = $1 for update`, [id])).rows[0];
  }

  /**
   * A paid session of ours that clipd has no row for: Stripe opened it, then clipd stopped before
   * remembering it. The metadata clipd gave it (signed along with the event) says whose it is and
   * what it buys, so the buyer is not left paying for nothing.
   */
  // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
  private async adopt(tx: Queryable, s: Stripe.Checkout.Session): Promise<any> {
    const m = s.metadata ?? {};
    const cents = m.clipd_kind === "pack" ? Number(m.clipd_pack_cents) : m.clipd_kind === "plan" ? 0 : NaN;
    if (!m.clipd_account || !Number.isInteger(cents) || cents < 0) return undefined;
    const known = await tx.query(`select 1 from accounts where id::text = $1`, [m.clipd_account]);
    if (!known.rows.length) return undefined; // another clipd's customer on the same Stripe account
    await tx.query(
      `insert into payment_checkouts (id, account_id, provider, kind, cents) ` +
        `values ($1, $2, 'stripe', $3, $4) on conflict (id) do nothing`,
      [s.id, m.clipd_account, m.clipd_kind, cents],
    );
    const customer = typeof s.customer === "string" ? s.customer : s.customer?.id;
    if (customer)
      await tx.query(
        `insert into payment_customers (account_id, provider, customer_id) values ` +
          `($1, 'stripe', $2) on conflict do nothing`,
        [m.clipd_account, customer],
      );
    return this.checkoutRow(tx, s.id);
  }

  private async refunded(tx: Queryable, intent: string, amountRefunded: number): Promise<void> {
    const { rows } = await tx.query(
      `select * from payment_checkouts where payment_intent = $1 and kind = 'pack' and status <> 'open' for update`,
      [intent],
    );
    const row = rows[0];
    if (!row) return; // not a pack of ours (a plan invoice's charge, another product)
    const cents = Number(row.cents);
    const takeBack = Math.min(cents, amountRefunded) - Number(row.refunded_cents);
    if (takeBack <= 0) return;
    const total = Number(row.refunded_cents) + takeBack;
    await tx.query(
      `update payment_checkouts set refunded_cents = $2, status = case when $2 ` +
        `>= cents then 'refunded' else status end where id = $1`,
      [row.id, total],
    );
    await this.deps.billing.movePayment(
      tx,
      row.account_id,
      -takeBack,
      "pack_refund",
      row.id,
      `credit pack refunded: ${takeBack} of its ${cents} cents taken back`,
    );
  }

  private async subscriptionChanged(
    tx: Queryable,
    sub: Stripe.Subscription,
    status: string,
    created: number,
  ): Promise<void> {
    const customer = typeof sub.customer === "string" ? sub.customer : sub.customer.id;
    const { rows } = await tx.query(
      `select coalesce((select account_id from payment_subscriptions where id ` +
        `= $1), (select account_id from payment_customers where customer_id = $2)) as account_id`,
      [sub.id, customer],
    );
    const accountId = rows[0]?.account_id;
    if (!accountId) return; // not a customer of this clipd
    await tx.query(
      `insert into payment_subscriptions (id, account_id, status, event_created) values ($1, $2, $3, $4)
       on conflict (id) do update set status = excluded.status, event_created = excluded.event_created, updated_at = now()
        where payment_subscriptions.event_created <= excluded.event_created`,
      [sub.id, accountId, status, created],
    );
    await this.planFollows(tx, accountId, sub.id);
  }

  /** Sets the plan from the account's subscriptions: on while any of them is live. */
  private async planFollows(tx: Queryable, accountId: string, ref: string): Promise<void> {
    const { rows } = await tx.query(`select status from payment_subscriptions where account_id = $1`, [accountId]);
    const on = rows.some((r) => LIVE_SUBSCRIPTION.has(r.status));
    await this.deps.billing.setPlan(
      tx,
      accountId,
      on,
      ref,
      on ? "plan on: Stripe subscription active" : "plan off: no active Stripe subscription",
    );
  }
}
