/**
 * Transcript prices (the `transcripts:` section of config/pricing.yaml): each account gets
 * `free_per_month` live transcripts a calendar month (UTC) for nothing; later ones are paid by
 * length at `cents_per_hour`, counted in started minutes and rounded up to a whole cent. No file
 * may be longer than `max_minutes`. A failed transcript costs nothing and frees its free slot. An
 * account made by the website's sign-up gets the free ones only once its address is verified,
 * unless web.free_transcripts_unverified says otherwise.
 *
 * Like episodes (daemon/account/billing.ts), a paid transcript is only checked when it starts (credit for
 * its first minute, balance not below zero) and charged when it completes, by its measured length,
 * in the transaction that ends its run, so credit may fall below zero by one file at most.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { projectRoot } from "../../config/loader.js";
import { PaymentRequired } from "../domain/errors.js";
import type { Queryable } from "../store/db.js";

export interface TranscriptPrices {
  /** Live transcripts per account and calendar month (UTC) that cost nothing. Default 3. */
  free_per_month: number;
  /** Price of an hour of audio after the free ones, in cents. Default 100. */
  cents_per_hour: number;
  /** Longest file accepted, in minutes. Default 90. */
  max_minutes: number;
}

export const TRANSCRIPT_PRICE_DEFAULTS: TranscriptPrices = { free_per_month: 3, cents_per_hour: 100, max_minutes: 90 };

const cache = new Map<string, TranscriptPrices>();

/** Reads `transcripts:` from the price table; missing keys take the defaults above. */
export function loadTranscriptPrices(file = path.join(projectRoot(), "config", "pricing.yaml")): TranscriptPrices {
  const hit = cache.get(file);
  if (hit) return hit;
  let section: Record<string, unknown> = {};
  try {
    // biome-ignore lint/suspicious/noExplicitAny: a YAML price file, checked field by field
    section = (parse(readFileSync(file, "utf8")) as any)?.transcripts ?? {};
  } catch (caught) {
    const err = caught as NodeJS.ErrnoException;
    if (err?.code !== "ENOENT")
      throw new Error(`${file}: cannot read the price table: ${err?.message ?? err}`, { cause: err });
  }
  const out = { ...TRANSCRIPT_PRICE_DEFAULTS };
  for (const k of Object.keys(out) as Array<keyof TranscriptPrices>) {
    const v = section[k];
    if (v === undefined) continue;
    if (!Number.isInteger(v) || (v as number) < 0)
      throw new Error(`${file}: transcripts.${k} must be a whole number ≥ 0`);
    out[k] = v as number;
  }
  if (out.max_minutes < 1) throw new Error(`${file}: transcripts.max_minutes must be at least 1`);
  cache.set(file, out);
  return out;
}

/** What a paid transcript of `seconds` costs: started minutes at the hourly price, rounded up. */
export function transcriptCents(seconds: number, prices: TranscriptPrices): number {
  const minutes = Math.max(1, Math.ceil(seconds / 60 - 1e-9));
  return Math.ceil((minutes * prices.cents_per_hour) / 60);
}

/** Live transcripts this month that used the free allowance (failed ones give theirs back). */
export async function freeTranscriptsUsed(q: Queryable, accountId: string): Promise<number> {
  const { rows } = await q.query(
    `select count(*)::int as n from transcripts
      where account_id = $1 and livemode and free and status <> 'failed' and created_at >= date_trunc('month', now())`,
    [accountId],
  );
  return rows[0].n;
}

/**
 * Decides, with the account row locked for the rest of the transaction, whether a new live
 * transcript is free or paid. Paid ones need a balance not below zero and credit for one minute;
 * otherwise PaymentRequired (402) is thrown and nothing is made.
 */
export async function decideTranscriptPayment(
  tx: Queryable,
  accountId: string,
  prices: TranscriptPrices,
  opts: { freeUnverified?: boolean } = {},
): Promise<{ free: boolean }> {
  const { rows } = await tx.query(
    `select credit_cents, web_signup, email_verified_at is not null as verified from accounts where id = $1 for update`,
    [accountId],
  );
  const credit = Number(rows[0]?.credit_cents ?? 0);
  // Before the free ones: a balance below zero (a refunded pack already spent) stops every live call.
  if (credit < 0) {
    throw new PaymentRequired(
      "balance_below_zero",
      `the account's balance is ${credit} cents; add at least ${-credit} cents of credit to continue`,
      -credit,
      credit,
    );
  }
  // A website sign-up gets the free ones once its address is verified (issue 27, finding 9): an
  // address alone costs nothing to make, a mailbox that answers costs a little more.
  const waiting = rows[0]?.web_signup === true && rows[0]?.verified !== true && !opts.freeUnverified;
  if (!waiting && (await freeTranscriptsUsed(tx, accountId)) < prices.free_per_month) return { free: true };
  const min = transcriptCents(60, prices);
  if (credit < min && waiting) {
    throw new PaymentRequired(
      "credit_required",
      `the ${prices.free_per_month} free transcripts a month start once this account's e-mail address is ` +
        "verified (open the mailed link, or ask for a new one on the account page); until then a transcript costs " +
        `${prices.cents_per_hour} cents an hour and needs at least ${min} cents of credit (you have ${credit})`,
      min - credit,
      credit,
    );
  }
  if (credit < min) {
    throw new PaymentRequired(
      "credit_required",
      `this month's ${prices.free_per_month} free transcripts are used; a transcript ` +
        `then costs ${prices.cents_per_hour} cents an hour and needs at least ${min} ` +
        `cents of credit (you have ${credit})`,
      min - credit,
      credit,
    );
  }
  return { free: false };
}

/** Charges a completed paid transcript to credit (it may fall below zero) and records it in the ledger. */
export async function chargeTranscript(
  tx: Queryable,
  accountId: string,
  transcriptId: string,
  seconds: number,
  prices: TranscriptPrices,
): Promise<number> {
  const cents = transcriptCents(seconds, prices);
  await tx.query(`update accounts set credit_cents = credit_cents - $2 where id = $1`, [accountId, cents]);
  await tx.query(
    `insert into ledger (id, account_id, cents, kind, ref, note) values ($1, $2, $3, 'transcript', $4, $5)`,
    [randomUUID(), accountId, -cents, transcriptId, `transcript of ${Math.round(seconds)} s`],
  );
  return cents;
}
