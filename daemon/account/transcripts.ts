/**
 * Account transcripts: one row per transcript ordered through the API, backed by a run of the
 * `transcript` pipeline (fetch-source, probe, transcribe, notify). The rows are in
 * transcript-rows.ts, what a run's end settles in transcript-run-ends.ts.
 *
 * Guarantees:
 * - Ordering runs in one transaction with the account row locked: the duplicate check, the
 *   free-or-paid decision, the row and the run's first job commit together or not at all, so two
 *   concurrent orders of the same url make one run, and two orders cannot share the last free slot.
 * - An account asking again for a url it already has (queued, running or completed) gets that
 *   transcript back; only a failed one is made anew.
 * - The row is settled by a runner.onRunEnd hook in the transaction that ends the run (status,
 *   result and charge together). Reads settle a row whose run ended without the hook (a process
 *   that never registered it, a cancelled run); settling is idempotent.
 */
import { randomUUID } from "node:crypto";
import { TERMINAL, type Run } from "../engine/runner.js";
import { transactionWith, type Queryable, type Within } from "../store/db.js";
import {
  decideTranscriptPayment,
  freeTranscriptsUsed,
  loadTranscriptPrices,
  type TranscriptPrices,
} from "./transcript-billing.js";
import type { AccountSurface } from "./surfaces.js";
import { SELECT, toRecord, type Ordered, type TranscriptDeps, type TranscriptRecord } from "./transcript-rows.js";
import { TranscriptRunEnds } from "./transcript-run-ends.js";

export {
  transcriptKeys,
  type Ordered,
  type TranscriptDeps,
  type TranscriptRecord,
  type TranscriptResult,
  type TranscriptStatus,
} from "./transcript-rows.js";
export { transcriptPage } from "./transcript-run-ends.js";

export class TranscriptService {
  readonly prices: TranscriptPrices;
  private registered = false;
  /** Settling a transcript when its run ends (transcript-run-ends.ts). */
  private readonly ends: TranscriptRunEnds;

  constructor(private readonly deps: TranscriptDeps) {
    this.prices = deps.prices ?? loadTranscriptPrices();
    this.ends = new TranscriptRunEnds(deps, this.prices);
  }

  /** Settles transcripts in the transaction that ends their run. Safe to call more than once. */
  register(): void {
    if (this.registered) return;
    this.registered = true;
    this.deps.runner.onRunEnd((tx, run) => this.settle(tx, run));
  }

  /**
   * Orders a transcript of `url` (already checked by the caller), or returns the account's
   * existing one for that url. Throws PaymentRequired (402) when a paid one cannot start. With
   * `upload`, the stored file is transcribed instead; `url` then only names it (`upload:<id>`).
   */
  async order(
    input: {
      accountId: string;
      url: string;
      name: string;
      origin: AccountSurface;
      id?: string;
      upload?: { key: string; name: string };
    },
    within?: Within<Ordered>,
  ): Promise<Ordered> {
    const { id, created } = await transactionWith(
      this.deps.db,
      async (tx) => {
        await tx.query(`select id from accounts where id = $1 for update`, [input.accountId]);
        const existing = await tx.query(
          `select id from transcripts where account_id = $1 and url = $2 and status <> 'failed'`,
          [input.accountId, input.url],
        );
        if (existing.rows[0]) return { id: existing.rows[0].id as string, created: false };
        const { free } = await decideTranscriptPayment(tx, input.accountId, this.prices, {
          freeUnverified: this.deps.freeUnverified ?? false,
        });
        const id = input.id ?? randomUUID();
        await tx.query(
          `insert into transcripts (id, account_id, livemode, url, name, free) values ($1, $2, true, $3, $4, $5)`,
          [id, input.accountId, input.url, input.name, free],
        );
        // An uploaded file (daemon/account/transcript-uploads.ts) is checked in storage, not fetched.
        const source = input.upload ? { upload: input.upload } : { source_url: input.url };
        const run = await this.deps.runner.startRun(
          "transcript",
          { ...source, account_id: input.accountId, livemode: true, transcript_id: id },
          { origin: input.origin, originRef: id, tx, set: { "probe.max_seconds": this.prices.max_minutes * 60 } },
        );
        await tx.query(`update transcripts set run_id = $2 where id = $1`, [id, run.id]);
        return { id, created: true };
      },
      within &&
        (async (tx, r) =>
          within(tx, {
            transcript: toRecord((await tx.query(`${SELECT} where t.id = $1`, [r.id])).rows[0]),
            created: r.created,
          })),
    );
    return { transcript: (await this.get(input.accountId, id))!, created };
  }

  /** The account's transcript, or undefined (also for another account's id). */
  async get(accountId: string, id: string): Promise<TranscriptRecord | undefined> {
    const { rows } = await this.deps.db.query(`${SELECT} where t.id = $1 and t.account_id = $2`, [id, accountId]);
    const row = rows[0];
    if (!row) return undefined;
    if ((row.status === "queued" || row.status === "running") && row.run_id && TERMINAL.has(row.run_state)) {
      await this.deps.db.transaction(async (tx) => {
        const run = await this.deps.runner.getRun(row.run_id, tx);
        if (run) await this.settle(tx, run);
      });
      const again = await this.deps.db.query(`${SELECT} where t.id = $1`, [id]);
      return toRecord(again.rows[0]);
    }
    return toRecord(row);
  }

  /** The transcript's plain text, once completed. */
  async text(t: TranscriptRecord): Promise<string | undefined> {
    const key = t.result?.files?.txt;
    if (t.status !== "completed" || !key || !(await this.deps.storage.exists(key))) return undefined;
    return (await this.deps.storage.read(key)).toString("utf8");
  }

  /** This month's live transcripts of an account, for GET /me. */
  async usage(
    q: Queryable,
    accountId: string,
  ): Promise<{ transcripts: number; free_used: number; free_included: number; charged_cents: number }> {
    const { rows } = await q.query(
      `select count(*)::int as n, coalesce(sum(charged_cents), 0)::bigint as cents from transcripts
        where account_id = $1 and livemode and status <> 'failed' and created_at >= date_trunc('month', now())`,
      [accountId],
    );
    return {
      transcripts: rows[0].n,
      free_used: await freeTranscriptsUsed(q, accountId),
      free_included: this.prices.free_per_month,
      charged_cents: Number(rows[0].cents),
    };
  }

  /** Moves the transcript of an ended run to completed (charging it) or failed (transcript-run-ends.ts). */
  settle(tx: Queryable, run: Run): Promise<void> {
    return this.ends.settle(tx, run);
  }
}
