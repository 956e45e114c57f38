/**
 * What a free job looks like to its caller: the poll answer (also a callback's data) and the
 * tier's refusals. The text comes inline while small, else as signed links.
 */
import type { Storage } from "../storage/storage.js";
import { isoColumn, jsonColumn } from "../store/_columns.js";
import type { FreeConfig } from "./config.js";

export interface ViewDeps {
  storage: Storage;
  inlineMaxBytes: number;
  /** Signs a download link; without one the text is always inline. */
  link?: (file: { key: string; name: string; type: string }) => string;
  /** Signs the kept recording's link until a time (the audio retention's end); without one, no player link. */
  audioLink?: (file: { key: string; name: string; until: Date }) => { url: string; expires_at: string };
  /** free.audio_retention_days and free.clock_offset_seconds: when the janitor deletes the recording. */
  audioDays?: number;
  clockOffsetSeconds?: number;
}

/**
 * The recording a finished job kept, as a link that expires when the retention deletes it (so a
 * player never points at a file that is gone); none once deleted, past it, or without a signer.
 */
// biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
function audioOf(row: any, o: ViewDeps): { audio_url: string; audio_expires_at: string } | Record<string, never> {
  if (!row.audio_key || row.audio_deleted_at || !o.audioLink || o.audioDays === undefined) return {};
  const until = Date.parse(isoColumn(row.created_at)!) + o.audioDays * 86_400_000 - (o.clockOffsetSeconds ?? 0) * 1000;
  if (!(until > Date.now() + 60_000)) return {};
  const ext = /\.[a-z0-9]{1,5}$/i.exec(String(row.audio_key))?.[0]?.toLowerCase() ?? "";
  const link = o.audioLink({ key: row.audio_key, name: `recording${ext}`, until: new Date(until) });
  return { audio_url: link.url, audio_expires_at: link.expires_at };
}

/**
 * A job's failure as the caller sees it. A file whose length its server did not tell is measured
 * by the probe stage after download; its `too_long` there is the tier's code, as at submission.
 */
export function tierError(
  // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
  error: Record<string, any>,
  row: { key_id: string | null },
  cfg: FreeConfig,
  // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
): Record<string, any> {
  if (error.code === "too_long" && error.max_duration_seconds !== undefined) {
    return tooLong(row.key_id === null, Number(error.duration_seconds), Number(error.max_duration_seconds), cfg);
  }
  // An unmeasured download cut at the size limit keeps the limit it hit.
  const limit = error.code === "too_big" && error.max_bytes !== undefined ? { max_bytes: error.max_bytes } : {};
  return { code: error.code, message: error.message, ...limit };
}

/** The tier's too-long refusal, at submission or after download: code, message and both lengths. */
export function tooLong(anon: boolean, seconds: number, max: number, cfg: FreeConfig) {
  const duration = Math.round(seconds * 10) / 10;
  return {
    code: anon ? "too_long_anon" : "too_long",
    message: anon
      ? `the file is ${duration} s long; without a key the limit is ${max} s (a ` +
        `free key allows ${cfg.max_seconds_key} s)`
      : `the file is ${duration} s long, over the limit of ${max} s`,
    max_duration_seconds: max,
    duration_seconds: duration,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
export async function freeJobView(row: any, o: ViewDeps): Promise<Record<string, unknown>> {
  if (row.status === "queued") {
    const elapsed = Math.max(0, Math.round((Date.now() - Date.parse(isoColumn(row.created_at)!)) / 1000));
    return { id: row.id, status: "processing", elapsed_seconds: elapsed, poll_after_seconds: elapsed < 30 ? 2 : 10 };
  }
  if (row.status === "failed") {
    const e = jsonColumn(row.error) ?? { code: "failed", message: "the transcription failed" };
    return { id: row.id, status: "failed", error: e }; // as settle stored it (tierError)
  }
  const r = jsonColumn(row.result) ?? {};
  const base = {
    id: row.id,
    status: "completed",
    ...(row.code ? { code: row.code } : {}),
    ...audioOf(row, o),
    duration_seconds: row.duration_seconds === null ? null : Number(row.duration_seconds),
    word_count: r.word_count ?? 0,
    language: r.language ?? null,
    ...(r.language_source ? { language_source: r.language_source } : {}),
    ...(r.language && r.language !== "en"
      ? {
          language_note:
            `the speech was detected as "${r.language}"; English is the supported language, ` +
            `so this transcript may be poor`,
        }
      : {}),
  };
  const files = (r.files ?? {}) as { txt?: string; srt?: string; vtt?: string };
  const read = async (key?: string) =>
    key && (await o.storage.exists(key)) ? (await o.storage.read(key)).toString("utf8") : "";
  const sizes = await Promise.all(
    [files.txt, files.srt, files.vtt].map(async (k) => (k && (await o.storage.exists(k)) ? o.storage.size(k) : 0)),
  );
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total < o.inlineMaxBytes || !o.link) {
    return { ...base, text: (await read(files.txt)).trim(), srt: await read(files.srt), vtt: await read(files.vtt) };
  }
  const link = (key: string, name: string, type: string) => o.link!({ key, name, type });
  return {
    ...base,
    text_url: link(files.txt!, "transcript.txt", "text/plain; charset=utf-8"),
    srt_url: link(files.srt!, "transcript.srt", "application/x-subrip; charset=utf-8"),
    vtt_url: link(files.vtt!, "transcript.vtt", "text/vtt; charset=utf-8"),
    note:
      `the text, srt and vtt total ${total} bytes (${o.inlineMaxBytes} or more), ` +
      `so they are given as links, valid 7 days`,
  };
}
