/**
 * The free tool's retention: a daily pg-boss schedule (free.retention_cron) runs sweepFree, which
 * deletes the audio (downloaded, or uploaded from the free page: a job's audio_key either way)
 * after free.audio_retention_days and the text after free.text_retention_days. It also removes
 * the website's uploads that never started (daemon/web/uploads.ts). A job whose text is gone is `expired`, and a poll
 * then answers 404.
 * Tests move the clock with free.clock_offset_seconds instead of waiting. Deleting is idempotent,
 * so a sweep cut short by a crash is finished by the next one.
 */
import type { Logger } from "pino";
import type { Config } from "../../config/loader.js";
import { freeConfig } from "./config.js";
import type { Storage } from "../storage/storage.js";
import type { Db } from "../store/db.js";
import { jsonColumn } from "../store/_columns.js";
import { sweepWebUploads } from "../web/uploads.js";

export const FREE_RETENTION_QUEUE = "clipd-free-retention";

export interface JanitorDeps {
  db: Db;
  storage: Storage;
  config: Config;
  log: Logger;
}

/** Deletes audio and text past their retention (the clock moved by free.clock_offset_seconds). */
export async function sweepFree(deps: JanitorDeps): Promise<{ audio: number; text: number }> {
  const cfg = freeConfig(deps.config);
  const now = `now() + make_interval(secs => $1)`;
  const audio = await deps.db.query(
    `select id, audio_key from free_jobs where audio_key is not null and audio_deleted_at ` +
      `is null and created_at < ${now} - make_interval(days => $2::int)`,
    [cfg.clock_offset_seconds, cfg.audio_retention_days],
  );
  for (const r of audio.rows) {
    await deps.storage.remove(r.audio_key).catch(() => undefined);
    await deps.db.query(`update free_jobs set audio_deleted_at = now() where id = $1`, [r.id]);
  }
  const text = await deps.db.query(
    `select id, result from free_jobs where status in ('completed', 'failed') ` +
      `and created_at < ${now} - make_interval(days => $2::int)`,
    [cfg.clock_offset_seconds, cfg.text_retention_days],
  );
  for (const r of text.rows) {
    const files = jsonColumn(r.result)?.files ?? {};
    for (const key of Object.values(files) as string[]) await deps.storage.remove(key).catch(() => undefined);
    const json = typeof files.txt === "string" ? files.txt.replace(/\.txt$/, ".json") : undefined;
    if (json) await deps.storage.remove(json).catch(() => undefined);
    await deps.db.query(`update free_jobs set status = 'expired', result = null where id = $1`, [r.id]);
  }
  await sweepWebUploads(deps, cfg.clock_offset_seconds);
  if (audio.rows.length || text.rows.length)
    deps.log.info({ audio: audio.rows.length, text: text.rows.length }, "free retention: deleted");
  return { audio: audio.rows.length, text: text.rows.length };
}
