/**
 * Settling a free job when its run ends: the result or the tier's error, the real cost in place
 * of the reservation, and the signed callback queued (daemon/free/courier.ts), all in the
 * transaction that ends the run (runner.onRunEnd) or in a poll's. Kept apart from FreeService so
 * the end of a job reads in one place.
 */
import type { Config } from "../../config/loader.js";
import { freeConfig } from "./config.js";
import type { QueueManager } from "../engine/queue.js";
import { TERMINAL, type Run } from "../engine/runner.js";
import type { Queryable } from "../store/db.js";
import { queueCallback } from "./courier.js";
import { monthStart } from "./admission.js";
import { isoColumn } from "../store/_columns.js";
import { tierError } from "./view.js";

/** What settling needs: the queue for the callback, the config, and the poll answer as the callback's data. */
export interface SettleDeps {
  queue: QueueManager;
  config: Config;
  // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
  view: (row: any) => Promise<Record<string, unknown>>;
}

/** Moves the job of an ended run to completed (no_speech included) or failed. Idempotent. */
export async function settleFreeJob(deps: SettleDeps, tx: Queryable, run: Run): Promise<void> {
  if (run.pipeline !== "transcript" || !run.input?.free_job_id || !TERMINAL.has(run.state)) return;
  const { rows } = await tx.query(`select * from free_jobs where id = $1 and run_id = $2 for update`, [
    run.input.free_job_id,
    run.id,
  ]);
  const row = rows[0];
  if (!row || row.status !== "queued") return;
  // A download's audio is the run's source; an upload's was noted when it was admitted.
  const audioKey = run.output?.source?.key ?? row.audio_key ?? null;
  let seconds = row.duration_seconds === null ? null : Number(row.duration_seconds);
  if (run.state === "succeeded") {
    // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
    const t = (run.output.transcript ?? {}) as Record<string, any>;
    seconds = Number(t.duration ?? run.output.media?.duration ?? seconds ?? 0);
    const result = {
      files: t.files,
      language: t.language ?? null,
      language_source: t.language_source ?? null,
      word_count: t.word_count ?? 0,
      engine: t.engine,
    };
    await tx.query(
      `update free_jobs set status = 'completed', duration_seconds = $2, result ` +
        `= $3, audio_key = $4, finished_at = now() where id = $1`,
      [row.id, seconds, JSON.stringify(result), audioKey],
    );
  } else if (run.error?.code === "no_speech") {
    seconds = Number(run.output?.media?.duration ?? seconds ?? 0);
    await tx.query(
      `update free_jobs set status = 'completed', code = 'no_speech', duration_seconds ` +
        `= $2, result = $3, audio_key = $4, finished_at = now() where id = $1`,
      [row.id, seconds, JSON.stringify({ language: null, word_count: 0 }), audioKey],
    );
  } else {
    const error = tierError(
      run.error ?? { code: "cancelled", message: "the transcription was cancelled" },
      row,
      freeConfig(deps.config),
    );
    await tx.query(
      `update free_jobs set status = 'failed', code = $2, error = $3, audio_key ` +
        `= $4, finished_at = now() where id = $1`,
      [row.id, error.code, JSON.stringify(error), audioKey],
    );
  }
  // The real cost replaces the reservation (a failed job before transcription costs nothing).
  const real =
    run.state === "succeeded" || run.error?.code === "no_speech"
      ? ((seconds ?? 0) / 60) * freeConfig(deps.config).cents_per_minute
      : 0;
  const delta = real - Number(row.cost_cents);
  await tx.query(`update free_jobs set cost_cents = $2 where id = $1`, [row.id, real]);
  await tx.query(
    `update free_budget set spent_cents = spent_cents + $2, anon_spent_cents ` +
      `= anon_spent_cents + $3 where month = $1`,
    [monthStart(new Date(isoColumn(row.created_at)!)), delta, row.key_id ? 0 : delta],
  );
  if (row.callback_url) {
    const settled = (await tx.query(`select * from free_jobs where id = $1`, [row.id])).rows[0];
    const data = await deps.view(settled);
    const type = data.status === "failed" ? "transcription.failed" : "transcription.completed";
    const payload = JSON.stringify({ type, timestamp: new Date().toISOString(), data });
    await queueCallback(tx, deps.queue, { jobId: row.id, url: row.callback_url, payload });
  }
}
