/**
 * The account API's episode, clip and job rows as the services hand them out, and their mapping
 * from database rows (JSON and timestamp columns read the same on PGlite and PostgreSQL).
 */
import type { Logger } from "pino";
import type { Config } from "../../config/loader.js";
import type { Runner } from "../engine/runner.js";
import type { Storage } from "../storage/storage.js";
import type { Db, Queryable } from "../store/db.js";
import { NotFound } from "../domain/errors.js";
import { isoColumn, jsonColumn } from "../store/_columns.js";
import type { BillingService } from "./billing.js";

export type EpisodeStatus = "awaiting_upload" | "importing" | "transcribing" | "searching" | "ready" | "failed";
export interface ClipLook {
  style?: string;
  caption_size?: string;
  caption_position?: string;
  hook_title?: boolean | string;
  /** Draw the title even when heard with low confidence (issue 39). */
  hook_title_anyway?: boolean;
  fit?: string;
  background?: string;
  aspect_ratio?: string;
  /** A brand kit id; null: none. */
  brand_kit?: string | null;
  censor?: string;
  emphasis?: boolean;
  emoji?: boolean;
  /** natural, tight or off (daemon/render/pace.ts). */
  pace?: string;
  /** LUFS, or "off" (daemon/render/loudness.ts). */
  loudness?: number | "off";
  /** auto, follow, split or whole (daemon/render/camera.ts). */
  layout?: string;
}
export interface EpisodeRow {
  id: string;
  account_id: string;
  livemode: boolean;
  name: string;
  status: Exclude<EpisodeStatus, "transcribing">;
  failure: { code: string; message: string; stage?: string } | null;
  source_url: string | null;
  upload: { key: string; name: string } | null;
  options: { content_type?: string; target_seconds?: number; about?: string };
  // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
  state: Record<string, any>;
  run_id: string | null;
  search_run_id: string | null;
  searches: Array<{ about: string | null; run_id: string; state: string; added?: number; error?: unknown }>;
  duration_seconds: number | null;
  charged_cents: number;
  created_at: string;
  updated_at: string;
  /** From the current run (import or search), when one is under way. */
  run?: { state: string; stage: string | null; progress: number; note: string | null; eta_at: string | null } | null;
  /** Step jobs a worker takes before this episode's queued one; null while its step runs or with none queued. */
  queue_ahead?: number | null;
}

export interface ClipRow {
  id: string;
  episode_id: string;
  account_id: string;
  number: number;
  ref: string;
  // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
  data: Record<string, any>;
  cut_status: "not_cut" | "cutting" | "cut" | "failed";
  export_status: "none" | "rendering" | "exported" | "failed";
  // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
  cut: Record<string, any> | null;
  // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
  render: Record<string, any> | null;
  created_at: string;
}

export interface JobRow {
  id: string;
  account_id: string;
  episode_id: string;
  clip_id: string;
  kind: "cut" | "render";
  status: "queued" | "running" | "completed" | "failed";
  run_id: string | null;
  options: ClipLook;
  changes: Array<{ field: string; from: unknown; to: unknown }>;
  charged_cents: number;
  // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
  result: Record<string, any> | null;
  error: { code: string; message: string } | null;
  created_at: string;
  finished_at: string | null;
  run?: { state: string; progress: number; note: string | null; eta_at: string | null } | null;
  clip_title?: string | null;
  /** Step jobs a worker takes before this job's queued one; null while its step runs or with none queued. */
  queue_ahead?: number | null;
}

export interface StartedJob {
  job_id: string;
  clip_id: string;
  number: number;
  ref: string;
  kind: "cut" | "render";
  status: JobRow["status"];
  charged_cents: number;
  /** The clip's job made with this look before: answered again, nothing started (export_clips). */
  existing?: boolean;
}
export interface NotStarted {
  clip: number | string;
  reason: string;
  message: string;
  needed_cents?: number;
}

// biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
export function toEpisode(r: any): EpisodeRow {
  const run = r.run_state
    ? {
        state: r.run_state,
        stage: r.run_stage,
        progress: Number(r.run_progress),
        note: r.run_note,
        eta_at: isoColumn(r.run_eta_at ?? null),
      }
    : null;
  return {
    id: r.id,
    account_id: r.account_id,
    livemode: r.livemode,
    name: r.name,
    status: r.status,
    failure: jsonColumn(r.failure),
    source_url: r.source_url,
    upload: jsonColumn(r.upload),
    options: jsonColumn(r.options) ?? {},
    state: jsonColumn(r.state) ?? {},
    run_id: r.run_id,
    search_run_id: r.search_run_id,
    searches: jsonColumn(r.searches) ?? [],
    duration_seconds: numberOrNull(r.duration_seconds ?? r.probed_seconds),
    charged_cents: Number(r.charged_cents),
    created_at: isoColumn(r.created_at),
    updated_at: isoColumn(r.updated_at),
    run,
    queue_ahead: numberOrNull(r.queue_ahead),
  };
}
/** A numeric column (or jsonb text) as a number; null, missing or unreadable as null. */
function numberOrNull(v: unknown): number | null {
  const n = v === null || v === undefined ? NaN : Number(v);
  return Number.isFinite(n) ? n : null;
}
// biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
export function toClip(r: any): ClipRow {
  return {
    ...r,
    data: jsonColumn(r.data),
    cut: jsonColumn(r.cut),
    render: jsonColumn(r.render),
    created_at: isoColumn(r.created_at),
  };
}
// biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
export function toJob(r: any): JobRow {
  const run = r.run_state
    ? {
        state: r.run_state,
        progress: Number(r.run_progress),
        note: r.run_note,
        eta_at: isoColumn(r.run_eta_at ?? null),
      }
    : null;
  const { run_state, run_progress, run_note, run_eta_at, queue_ahead, ...rest } = r;
  return {
    ...rest,
    options: jsonColumn(r.options) ?? {},
    changes: jsonColumn(r.changes) ?? [],
    charged_cents: Number(r.charged_cents),
    result: jsonColumn(r.result),
    error: jsonColumn(r.error),
    created_at: isoColumn(r.created_at),
    finished_at: isoColumn(r.finished_at),
    run,
    queue_ahead: numberOrNull(queue_ahead),
  };
}

/** What the episode service is built from. */
export interface EpisodeDeps {
  db: Db;
  runner: Runner;
  billing: BillingService;
  storage: Storage;
  config: Config;
  log: Logger;
}

/** The pipelines the account's episodes and clips run. */
export const PIPELINES = { import: "api-episode", search: "api-search", cut: "clip", render: "restyle" } as const;

/** What a cancelled episode's failure says (episode-lifecycle.ts cancels, episode-run-ends.ts settles). */
export const CANCELLED: { code: string; message: string; stage?: string } = {
  code: "cancelled",
  message: "cancelled by the account before it was ready",
};

export const notFound = (what: string, id: string) =>
  new NotFound("not_found", `no ${what} ${id} on this account`, { context: { field: "id" } });

/** The episode row, locked for the rest of the transaction; another account's id is not found. */
export async function lockEpisode(tx: Queryable, accountId: string, id: string): Promise<EpisodeRow> {
  const { rows } = await tx.query(`select * from episodes where id = $1 and account_id = $2 for update`, [
    id,
    accountId,
  ]);
  if (!rows[0]) throw notFound("episode", id);
  return toEpisode(rows[0]);
}

export async function clipsOf(q: Queryable, episodeId: string): Promise<ClipRow[]> {
  const { rows } = await q.query(`select * from clips where episode_id = $1 order by number`, [episodeId]);
  return rows.map(toClip);
}
