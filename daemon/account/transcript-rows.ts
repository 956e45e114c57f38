/**
 * An account transcript as stored and shown: its row, its result files' storage keys and the read
 * that joins its run's progress. Shared by the service (transcripts.ts) and its run ends
 * (transcript-run-ends.ts), kept apart so neither imports the other.
 */
import type { AccountService } from "./accounts.js";
import { etaSeconds } from "../engine/progress.js";
import type { Runner } from "../engine/runner.js";
import type { Storage } from "../storage/storage.js";
import type { Db } from "../store/db.js";
import type { TranscriptPrices } from "./transcript-billing.js";
import { isoColumn, jsonColumn } from "../store/_columns.js";

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
export function toRecord(r: any): TranscriptRecord {
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

export const SELECT =
  `select t.*, r.state as run_state, r.progress as run_progress, r.eta_at ` +
  `as run_eta_at from transcripts t left join runs r on r.id = t.run_id`;
