/**
 * A transcript as its public results page shows it: an account's transcript or a free job, found
 * by the id a signed results link carries (the link is the authority; facade/signing.ts). What
 * comes back is storage keys, not links: the facade signs those.
 */
import type { Runner } from "../engine/runner.js";
import { NotFound } from "../domain/errors.js";
import type { Storage } from "../storage/storage.js";
import type { Db } from "../store/db.js";
import type { TranscriptService } from "../account/transcripts.js";
import { readTranscript } from "./episode-files.js";
import { transcriptLines, type TranscriptLines } from "./lines.js";

export type ResultsSource = "account" | "free";

export interface Results {
  source: ResultsSource;
  id: string;
  name: string | null;
  status: "queued" | "running" | "completed" | "failed" | "expired";
  text: string | null;
  language: string | null;
  duration_seconds: number | null;
  word_count: number | null;
  lines: TranscriptLines | null;
  /** Storage keys of the text files, once completed. */
  files: { txt: string; srt: string; vtt: string } | null;
  /** The source audio while the service still holds it. */
  audio: { key: string; name: string } | null;
  error: { code: string; message: string } | null;
}

export interface ResultsDeps {
  db: Db;
  runner: Runner;
  storage: Storage;
  transcripts: TranscriptService;
}

const gone = (id: string) =>
  new NotFound("not_found", `transcript ${id} is no longer here`, { context: { field: "token" } });

export async function readResults(d: ResultsDeps, source: ResultsSource, id: string): Promise<Results> {
  return source === "account" ? accountResults(d, id) : freeResults(d, id);
}

async function accountResults(d: ResultsDeps, id: string): Promise<Results> {
  const { rows } = await d.db.query(
    `select t.account_id from transcripts t join accounts a on a.id = t.account_id ` +
      `where t.id = $1 and t.livemode and a.deleted_at is null`,
    [id],
  );
  // A deleted account's transcripts are not shown, even behind a link still in date.
  const t = rows[0] ? await d.transcripts.get(String(rows[0].account_id), id) : undefined;
  if (!t) throw gone(id);
  const done = t.status === "completed";
  const out = t.run_id ? (await d.runner.getRun(t.run_id))?.output : undefined;
  const files = t.result?.files;
  return {
    source: "account",
    id,
    name: t.name,
    status: t.status,
    text: done ? ((await d.transcripts.text(t)) ?? null) : null,
    language: t.result?.language ?? null,
    duration_seconds: t.duration_seconds,
    word_count: t.result?.word_count ?? null,
    lines: done ? await lines(d.storage, t.result?.key) : null,
    files: done && files?.txt && files.srt && files.vtt ? { txt: files.txt, srt: files.srt, vtt: files.vtt } : null,
    audio: await held(d.storage, out?.source),
    error: t.error,
  };
}

async function freeResults(d: ResultsDeps, id: string): Promise<Results> {
  const { rows } = await d.db.query(`select * from free_jobs where id = $1`, [id]);
  const row = rows[0];
  if (!row) throw gone(id);
  const result = typeof row.result === "string" ? JSON.parse(row.result) : (row.result ?? {});
  const files = (result.files ?? {}) as { txt?: string; srt?: string; vtt?: string };
  const done = row.status === "completed";
  const read = async (key?: string) =>
    key && (await d.storage.exists(key)) ? (await d.storage.read(key)).toString("utf8").trim() : null;
  const audio = row.audio_key && !row.audio_deleted_at ? await held(d.storage, { key: row.audio_key }) : null;
  const error = typeof row.error === "string" ? JSON.parse(row.error) : row.error;
  return {
    source: "free",
    id,
    name: null,
    // A free job's run is "queued" in its row until it ends.
    status: row.status === "queued" ? "running" : row.status,
    text: done ? ((await read(files.txt)) ?? "") : null,
    language: result.language ?? null,
    duration_seconds: row.duration_seconds === null ? null : Number(row.duration_seconds),
    word_count: done ? Number(result.word_count ?? 0) : null,
    lines: done ? await lines(d.storage, files.txt?.replace(/\.txt$/, ".json")) : null,
    files: done && files.txt && files.srt && files.vtt ? { txt: files.txt, srt: files.srt, vtt: files.vtt } : null,
    audio,
    error: row.status === "failed" && error ? { code: String(error.code), message: String(error.message) } : null,
  };
}

async function lines(storage: Storage, jsonKey: string | undefined): Promise<TranscriptLines | null> {
  if (!jsonKey || !(await storage.exists(jsonKey))) return null;
  return transcriptLines(await readTranscript(storage, jsonKey));
}

async function held(
  storage: Storage,
  source: { key?: unknown; name?: unknown } | undefined,
): Promise<{ key: string; name: string } | null> {
  if (typeof source?.key !== "string" || !(await storage.exists(source.key))) return null;
  return { key: source.key, name: typeof source.name === "string" ? source.name : source.key.split("/").pop()! };
}
