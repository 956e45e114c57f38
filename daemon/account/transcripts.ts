/**
 * Account transcripts: one row per transcript ordered through the API, backed by a run of the
 * `transcript` pipeline (fetch-source, probe, transcribe, notify).
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
import type { AccountService } from "./accounts.js";
import { recordEvent } from "../engine/events.js";
import { etaSeconds } from "../engine/progress.js";
import { TERMINAL, type Run, type Runner } from "../engine/runner.js";
import type { Storage } from "../storage/storage.js";
import { transactionWith, type Db, type Queryable, type Within } from "../store/db.js";
import {
  chargeTranscript,
  decideTranscriptPayment,
  freeTranscriptsUsed,
  loadTranscriptPrices,
  type TranscriptPrices,
} from "./transcript-billing.js";
import { isoColumn, jsonColumn } from "../store/_columns.js";
import type { AccountSurface } from "./surfaces.js";

export type TranscriptStatus = "queued" | "running" | "completed" | "failed";

export interface TranscriptResult {
  key?: string;
  files?: { txt?: string; srt?: string; vtt?: string };
  page?: string;
  language?: string;
  engine?: string;
  word_count?: number;
  preview?: string;
}

/** What ordering a transcript gives: the transcript, and whether this order made it. */
export type Ordered = { transcript: TranscriptRecord; created: boolean };

export interface TranscriptRecord {
  id: string;
  account_id: string;
  livemode: boolean;
  url: string;
  name: string;
  status: TranscriptStatus;
  run_id: string | null;
  free: boolean;
  duration_seconds: number | null;
  charged_cents: number;
  result: TranscriptResult | null;
  error: { code: string; message: string } | null;
  progress: number;
  /** Seconds the running step still expects to take (runs.eta_at); null without an estimate. */
  eta_seconds: number | null;
  created_at: string;
  finished_at: string | null;
}

export interface TranscriptDeps {
  db: Db;
  runner: Runner;
  storage: Storage;
  accounts?: AccountService;
  prices?: TranscriptPrices;
  /** web.free_transcripts_unverified: a website sign-up gets the free ones before its address is verified. */
  freeUnverified?: boolean;
}

/** Storage keys the transcribe stage writes for a run, plus the page written when it completes. */
export function transcriptKeys(runId: string) {
  const base = `runs/${runId}/transcript`;
  return { txt: `${base}.txt`, srt: `${base}.srt`, vtt: `${base}.vtt`, json: `${base}.json`, page: `${base}.html` };
}

// biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
function toRecord(r: any): TranscriptRecord {
  let status: TranscriptStatus = r.status;
  // Until the run ends the row says queued; the run says whether it has started.
  if (status === "queued" && r.run_state === "running") status = "running";
  return {
    id: r.id,
    account_id: r.account_id,
    livemode: r.livemode,
    url: r.url,
    name: r.name,
    status,
    run_id: r.run_id,
    free: r.free,
    duration_seconds: r.duration_seconds === null ? null : Number(r.duration_seconds),
    charged_cents: Number(r.charged_cents),
    result: jsonColumn(r.result) ?? null,
    error: jsonColumn(r.error) ?? null,
    progress: status === "completed" ? 100 : Number(r.run_progress ?? 0),
    eta_seconds: etaSeconds({ state: r.run_state ?? undefined, eta_at: r.run_eta_at ?? null }),
    created_at: isoColumn(r.created_at)!,
    finished_at: isoColumn(r.finished_at),
  };
}

const SELECT =
  `select t.*, r.state as run_state, r.progress as run_progress, r.eta_at ` +
  `as run_eta_at from transcripts t left join runs r on r.id = t.run_id`;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A plain, script-free HTML page of a transcript's text. */
export function transcriptPage(name: string, text: string): string {
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${escapeHtml(p)}</p>`);
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(name)}</title>`,
    "<style>body{font:17px/1.6 system-ui,sans-serif;max-width:42em;margin:2em " +
      "auto;padding:0 1em;color:#222}h1{font-size:1.4em}</style>",
    `</head><body><h1>${escapeHtml(name)}</h1>`,
    ...paragraphs,
    "</body></html>",
    "",
  ].join("\n");
}

export class TranscriptService {
  readonly prices: TranscriptPrices;
  private registered = false;

  constructor(private readonly deps: TranscriptDeps) {
    this.prices = deps.prices ?? loadTranscriptPrices();
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

  /** Moves the transcript of an ended run to completed (charging it) or failed. Idempotent. */
  async settle(tx: Queryable, run: Run): Promise<void> {
    if (run.pipeline !== "transcript" || !TERMINAL.has(run.state)) return;
    const { rows } = await tx.query(`select * from transcripts where run_id = $1 for update`, [run.id]);
    const row = rows[0];
    if (!row || row.status === "completed" || row.status === "failed") return;
    if (run.state !== "succeeded") {
      const error = run.error ?? { code: "cancelled", message: "the transcript was cancelled" };
      await tx.query(
        `update transcripts set status = 'failed', error = $2, updated_at = now(), finished_at = now() where id = $1`,
        [row.id, JSON.stringify(error)],
      );
      const data = {
        id: row.id,
        status: "failed",
        name: row.name,
        url: row.url,
        error: { code: error.code, message: error.message },
        message: `the transcript of "${row.name}" failed: ${error.message}`,
      };
      await recordEvent(
        tx,
        { type: "transcript.failed", accountId: row.account_id, livemode: row.livemode, runId: run.id, data },
        this.deps.runner.queue,
      );
      return;
    }
    // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
    const t = (run.output.transcript ?? {}) as Record<string, any>;
    const seconds = Number(t.duration ?? run.output.media?.duration ?? 0);
    const keys = transcriptKeys(run.id);
    const result: TranscriptResult = {
      key: t.key,
      files: t.files ?? { txt: keys.txt, srt: keys.srt, vtt: keys.vtt },
      page: keys.page,
      language: t.language,
      engine: t.engine,
      word_count: t.word_count,
      preview: t.preview,
    };
    const cents =
      row.livemode && !row.free ? await chargeTranscript(tx, row.account_id, row.id, seconds, this.prices) : 0;
    await this.writePage(row.name, result.files?.txt, keys.page);
    await tx.query(
      `update transcripts set status = 'completed', duration_seconds = $2, charged_cents ` +
        `= $3, result = $4, updated_at = now(), finished_at = now() where id = $1`,
      [row.id, seconds, cents, JSON.stringify(result)],
    );
    const data = {
      id: row.id,
      status: "completed",
      name: row.name,
      url: row.url,
      language: result.language ?? null,
      duration_seconds: seconds,
      word_count: result.word_count ?? null,
      charged_cents: cents,
      free: row.free,
      created_at: isoColumn(row.created_at),
      completed_at: new Date().toISOString(),
      message:
        `the transcript of "${row.name}" is ready: read it at downloads.page, or ` +
        `take downloads.txt, .srt or .vtt (links valid 7 days)`,
    };
    const links = {
      "downloads.page": {
        key: result.page ?? keys.page,
        name: "transcript.html",
        type: "text/html; charset=utf-8",
        results: { source: "account" as const, id: row.id },
      },
      "downloads.txt": {
        key: result.files?.txt ?? keys.txt,
        name: "transcript.txt",
        type: "text/plain; charset=utf-8",
      },
      "downloads.srt": { key: result.files?.srt ?? keys.srt, name: "transcript.srt", type: "application/x-subrip" },
      "downloads.vtt": { key: result.files?.vtt ?? keys.vtt, name: "transcript.vtt", type: "text/vtt" },
    };
    await recordEvent(
      tx,
      { type: "transcript.completed", accountId: row.account_id, livemode: row.livemode, runId: run.id, data, links },
      this.deps.runner.queue,
    );
    if (cents) this.deps.accounts?.evictAccount(row.account_id);
  }

  private async writePage(name: string, txtKey: string | undefined, pageKey: string) {
    try {
      const text =
        txtKey && (await this.deps.storage.exists(txtKey))
          ? (await this.deps.storage.read(txtKey)).toString("utf8")
          : "";
      await this.deps.storage.write(pageKey, transcriptPage(name, text));
    } catch {
      // The page is a convenience; the txt, srt and vtt files are the transcript.
    }
  }
}
