/**
 * What follows a transcript run's end, in the transaction that ends it (runner.onRunEnd): the row
 * completed and charged, or failed, with its webhook event, and the transcript's HTML page written.
 * Split from transcripts.ts, which orders and reads transcripts; settling is idempotent.
 */
import { recordEvent } from "../engine/events.js";
import { TERMINAL, type Run } from "../engine/runner.js";
import type { Queryable } from "../store/db.js";
import { chargeTranscript, type TranscriptPrices } from "./transcript-billing.js";
import { isoColumn } from "../store/_columns.js";
import { transcriptKeys, type TranscriptDeps, type TranscriptResult } from "./transcript-rows.js";

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

export class TranscriptRunEnds {
  constructor(
    private readonly deps: TranscriptDeps,
    private readonly prices: TranscriptPrices,
  ) {}

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
