/**
 * Billing of the account API: the price table (config/pricing.yaml), the plan allowance and the
 * ledger. Every decision that spends runs inside the caller's transaction with the account row
 * locked, so two concurrent calls cannot both spend the last allowance or the same credit, and a
 * refused call leaves no row behind.
 *
 * - An episode is charged once, when its clip search starts, by its measured length: from the
 *   plan's monthly allowance while some is left, else from credit. The allowance is the API's: an
 *   episode whose import run came from the website or a chat (runs.origin) pays from credit, as
 *   the published rules keep those surfaces out of the plan. Credit may then fall below zero (the
 *   length is only known after the import); live spending calls are refused until it is topped up
 *   (402 balance_below_zero).
 * - The first `included_per_episode` exports of an episode are free, later ones cost `cents_each`
 *   and need that much credit before they start.
 * - A paid export whose job fails is refunded when its run ends (refundExport), once.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { projectRoot } from "../../config/loader.js";
import type { AccountService } from "./accounts.js";
import type { AccountSurface } from "./surfaces.js";
import { NotFound, PaymentRequired } from "../domain/errors.js";
import type { Queryable } from "../store/db.js";

export interface PriceTable {
  plan: { api_episodes_per_month: number };
  episode: { cents_per_minute: number; minimum_cents: number };
  exports: { included_per_episode: number; cents_each: number };
  pay_as_you_go: { enabled: boolean };
}

export function loadPricing(file = path.join(projectRoot(), "config", "pricing.yaml")): PriceTable {
  const doc = parse(readFileSync(file, "utf8")) as PriceTable;
  const nums: Array<[string, unknown]> = [
    ["plan.api_episodes_per_month", doc?.plan?.api_episodes_per_month],
    ["episode.cents_per_minute", doc?.episode?.cents_per_minute],
    ["episode.minimum_cents", doc?.episode?.minimum_cents],
    ["exports.included_per_episode", doc?.exports?.included_per_episode],
    ["exports.cents_each", doc?.exports?.cents_each],
  ];
  for (const [name, v] of nums) {
    if (!Number.isInteger(v) || (v as number) < 0) throw new Error(`${file}: ${name} must be a whole number ≥ 0`);
  }
  return { ...doc, pay_as_you_go: { enabled: doc.pay_as_you_go?.enabled !== false } };
}

interface Balance {
  plan: boolean;
  credit: number;
  planUsed: number;
}

export class BillingService {
  readonly prices: PriceTable;

  constructor(
    private readonly accounts: AccountService,
    opts: { prices?: PriceTable } = {},
  ) {
    this.prices = opts.prices ?? loadPricing();
  }

  /** What an episode of `seconds` costs from credit. */
  episodeCents(seconds: number): number {
    const minutes = Math.max(1, Math.ceil(seconds / 60 - 1e-9));
    return Math.max(this.prices.episode.minimum_cents, minutes * this.prices.episode.cents_per_minute);
  }

  /** Locks the account row for the rest of the transaction and reads what it may spend. */
  private async balance(tx: Queryable, accountId: string): Promise<Balance> {
    const { rows } = await tx.query(`select plan, credit_cents from accounts where id = $1 for update`, [accountId]);
    if (!rows[0]) throw new NotFound("not_found", `account ${accountId} does not exist`);
    return {
      plan: rows[0].plan,
      credit: Number(rows[0].credit_cents),
      planUsed: await this.planEpisodesUsed(tx, accountId),
    };
  }

  async planEpisodesUsed(q: Queryable, accountId: string): Promise<number> {
    const { rows } = await q.query(
      `select count(*)::int as n from ledger where account_id = $1 and kind = ` +
        `'episode_plan' and created_at >= date_trunc('month', now())`,
      [accountId],
    );
    return rows[0].n;
  }

  /** This month's use, for GET /me. */
  async usage(
    q: Queryable,
    accountId: string,
  ): Promise<{ plan_episodes_used: number; plan_episodes_included: number; spent_cents: number }> {
    const { rows } = await q.query(
      // A refund takes back its charge: spent is what charges cost, less what was given back.
      // A refunded credit pack (pack_refund) takes back credit that was bought, not spent.
      `select coalesce(sum(-cents), 0)::bigint as spent from ledger
        where account_id = $1 and ((cents < 0 and kind <> 'pack_refund') or kind = 'export_refund') and created_at >= date_trunc('month', now())`,
      [accountId],
    );
    return {
      plan_episodes_used: await this.planEpisodesUsed(q, accountId),
      plan_episodes_included: this.prices.plan.api_episodes_per_month,
      spent_cents: Number(rows[0].spent),
    };
  }

  /**
   * This month's use by operation, from the ledger's charges: episodes (plan ones count, at 0
   * cents), paid exports less their refunds, transcripts. Bought credit is not use.
   */
  async monthUse(q: Queryable, accountId: string): Promise<Array<{ operation: string; count: number; cents: number }>> {
    const { rows } = await q.query(
      `select case when kind in ('episode', 'episode_plan') then 'episodes' when kind in ('export', 'export_refund') then 'exports' else kind || 's' end as operation,
              count(*) filter (where kind <> 'export_refund')::int as n, coalesce(sum(-cents), 0)::bigint as cents
         from ledger
        where account_id = $1 and kind in ('episode', 'episode_plan', 'export', 'export_refund', 'transcript') and created_at >= date_trunc('month', now())
        group by 1 order by 1`,
      [accountId],
    );
    return rows.map((r) => ({ operation: r.operation, count: r.n, cents: Number(r.cents) }));
  }

  /**
   * A payment's movement of credit (a bought pack: +cents, a refunded one: -cents), in the
   * caller's transaction with the account row locked, as one ledger row beside the balance change.
   * A take-back may leave the balance below zero; live spending calls then stop (balance_below_zero).
   */
  async movePayment(
    tx: Queryable,
    accountId: string,
    cents: number,
    kind: "pack" | "pack_refund",
    ref: string,
    note: string,
  ): Promise<void> {
    await this.balance(tx, accountId);
    await this.record(tx, accountId, cents, kind, ref, note);
  }

  /** A plan switched on or off by a payment provider: a 0-cent ledger row says when and why. */
  async setPlan(tx: Queryable, accountId: string, on: boolean, ref: string, note: string): Promise<boolean> {
    const { rows } = await tx.query(`update accounts set plan = $2 where id = $1 and plan <> $2 returning id`, [
      accountId,
      on,
    ]);
    if (rows.length) await this.record(tx, accountId, 0, on ? "plan_on" : "plan_off", ref, note);
    return rows.length > 0;
  }

  private refuseBelowZero(b: Balance) {
    if (b.credit < 0) {
      throw new PaymentRequired(
        "balance_below_zero",
        `the account's balance is ${b.credit} cents; add at least ${-b.credit} cents of credit to continue`,
        -b.credit,
        b.credit,
      );
    }
  }

  /**
   * Checks that a new episode may start (nothing is charged yet): a plan episode left this month,
   * or credit for at least the minimum episode. Throws PaymentRequired otherwise.
   */
  async assertCanStartEpisode(tx: Queryable, accountId: string, origin: AccountSurface = "api"): Promise<void> {
    const b = await this.balance(tx, accountId);
    this.refuseBelowZero(b);
    const allowance = this.prices.plan.api_episodes_per_month;
    if (b.plan && origin === "api" && b.planUsed < allowance) return;
    const used =
      origin === "api"
        ? `this month's ${allowance} plan episodes are used`
        : `the plan's episodes are the API's: an episode from ${origin === "chat" ? "a chat" : "the website"} ` +
          `is paid from credit`;
    const min = this.prices.episode.minimum_cents;
    if (!this.prices.pay_as_you_go.enabled) {
      throw new PaymentRequired("plan_required", b.plan ? used : "episodes need a plan on this service", min, b.credit);
    }
    if (b.credit >= min) return;
    if (b.plan) {
      throw new PaymentRequired(
        "credit_required",
        `${used}; an episode then needs at least ${min} cents of credit (you have ${b.credit})`,
        min - b.credit,
        b.credit,
      );
    }
    throw new PaymentRequired(
      "plan_or_credit_required",
      `an episode needs a plan or at least ${min} cents of credit (you have ${b.credit})`,
      min - b.credit,
      b.credit,
    );
  }

  /** Refuses any live spending call while the balance is below zero. */
  async assertNotBelowZero(tx: Queryable, accountId: string): Promise<void> {
    this.refuseBelowZero(await this.balance(tx, accountId));
  }

  /**
   * Charges an episode when its clip search starts: a plan episode if one is left this month
   * (0 cents, recorded so the allowance counts it), else its price from credit, even below zero.
   */
  async chargeEpisode(
    tx: Queryable,
    accountId: string,
    episodeId: string,
    seconds: number,
    origin: AccountSurface = "api",
  ): Promise<{ cents: number; from: "plan" | "credit" }> {
    const b = await this.balance(tx, accountId);
    if (b.plan && origin === "api" && b.planUsed < this.prices.plan.api_episodes_per_month) {
      await this.record(tx, accountId, 0, "episode_plan", episodeId, `plan episode (${Math.round(seconds)} s)`);
      return { cents: 0, from: "plan" };
    }
    const cents = this.episodeCents(seconds);
    await this.record(tx, accountId, -cents, "episode", episodeId, `episode of ${Math.round(seconds)} s`);
    return { cents, from: "credit" };
  }

  /**
   * Charges one export, the `index`-th (1-based) of its episode. Free within the included ones;
   * after those it needs credit. Throws PaymentRequired, charging nothing, when refused.
   */
  async chargeExport(tx: Queryable, accountId: string, jobId: string, index: number): Promise<number> {
    const b = await this.balance(tx, accountId);
    this.refuseBelowZero(b);
    if (index <= this.prices.exports.included_per_episode) return 0;
    const cents = this.prices.exports.cents_each;
    if (b.credit < cents) {
      throw new PaymentRequired(
        "credit_required",
        `exports after the ${this.prices.exports.included_per_episode}th of an ` +
          `episode cost ${cents} cents each; the account has ${b.credit}`,
        cents - b.credit,
        b.credit,
      );
    }
    await this.record(tx, accountId, -cents, "export", jobId, `export ${index} of its episode`);
    return cents;
  }

  /**
   * Gives back what a failed export was charged: a failed render run is the service's failure,
   * not the caller's. Once per job, whatever replays its run end: the refund row is keyed by the
   * job (ref) and looked for with the account row locked. Returns the cents given back.
   */
  async refundExport(tx: Queryable, accountId: string, jobId: string): Promise<number> {
    await tx.query(`select 1 from accounts where id = $1 for update`, [accountId]);
    const { rows } = await tx.query(
      `select coalesce(sum(cents) filter (where kind = 'export'), 0)::bigint as charged, count(*) filter (where kind = 'export_refund')::int as refunds
         from ledger where account_id = $1 and ref = $2`,
      [accountId, jobId],
    );
    const cents = -Number(rows[0].charged);
    if (cents <= 0 || rows[0].refunds > 0) return 0;
    await this.record(tx, accountId, cents, "export_refund", jobId, "refund: the export failed");
    return cents;
  }

  private async record(tx: Queryable, accountId: string, cents: number, kind: string, ref: string, note: string) {
    if (cents !== 0)
      await tx.query(`update accounts set credit_cents = credit_cents + $2 where id = $1`, [accountId, cents]);
    await tx.query(`insert into ledger (id, account_id, cents, kind, ref, note) values ($1, $2, $3, $4, $5, $6)`, [
      randomUUID(),
      accountId,
      cents,
      kind,
      ref,
      note,
    ]);
    this.accounts.evictAccount(accountId);
  }
}
