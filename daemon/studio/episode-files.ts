/**
 * What the studio reads of an episode: its stored source, what the probe said of it, and its
 * transcript. An episode keeps these in `state` once its import has ended; while the import still
 * runs they are in the import run's output as soon as the stage that makes them has finished, so
 * the page can play the source while the episode is still transcribing.
 */
import type { Runner } from "../engine/runner.js";
import { Conflict, NotFound } from "../domain/errors.js";
import type { Storage } from "../storage/storage.js";
import type { TranscriptSegment, TranscriptWord } from "../render/captions.js";
import type { Queryable } from "../store/db.js";
import { toClip, toEpisode, type ClipRow, type EpisodeRow } from "../account/episode-rows.js";

export interface EpisodeFiles {
  episode: EpisodeRow;
  /** The stored source: its storage key and file name. */
  source?: { key: string; name: string };
  /** "video" when the source has a real picture track (the probe's word for it). */
  kind?: "audio" | "video";
  duration: number | null;
  /** The transcribe stage's JSON (words and segments). */
  transcriptKey?: string;
}

export interface FilesDeps {
  db: Queryable;
  runner: Runner;
  storage: Storage;
}

export const episodeNotFound = (id: string) =>
  new NotFound("not_found", `no episode ${id} on this account`, { context: { field: "id" } });

/** The account's episode with what it has stored so far; another account's id is not found. */
export async function episodeFiles(d: FilesDeps, accountId: string, id: string): Promise<EpisodeFiles> {
  const { rows } = await d.db.query(`select * from episodes where id = $1 and account_id = $2`, [id, accountId]);
  if (!rows[0]) throw episodeNotFound(id);
  const episode = toEpisode(rows[0]);
  // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
  let { source, media, transcript } = episode.state as Record<string, any>;
  if ((!source || !transcript) && episode.run_id) {
    const out = (await d.runner.getRun(episode.run_id))?.output ?? {};
    source ??= out.source;
    media ??= out.media;
    transcript ??= out.transcript;
  }
  const duration = episode.duration_seconds ?? numberOr(media?.duration) ?? numberOr(transcript?.duration) ?? null;
  return {
    episode,
    ...(typeof source?.key === "string"
      ? { source: { key: source.key, name: String(source.name ?? source.key.split("/").pop()) } }
      : {}),
    ...(media?.kind === "video" || media?.kind === "audio" ? { kind: media.kind } : {}),
    duration,
    ...(typeof transcript?.key === "string" ? { transcriptKey: transcript.key } : {}),
  };
}

/** The stored source, or 409 not_ready while the episode has none (yet, or any more). */
export async function requireSource(d: FilesDeps, f: EpisodeFiles): Promise<{ key: string; name: string }> {
  if (f.source && (await d.storage.exists(f.source.key))) return f.source;
  const status = f.episode.status;
  throw new Conflict(
    "not_ready",
    status === "failed"
      ? `episode ${f.episode.id} failed before its source was stored`
      : `episode ${f.episode.id} has no stored source yet (it is ${status}); the source is stored early in the import`,
    { context: { status } },
  );
}

/** The transcript's words and segments, or 409 not_ready before the episode is transcribed. */
export async function requireTranscript(
  d: FilesDeps,
  f: EpisodeFiles,
): Promise<{ words: TranscriptWord[]; segments: TranscriptSegment[] }> {
  if (f.transcriptKey && (await d.storage.exists(f.transcriptKey))) return readTranscript(d.storage, f.transcriptKey);
  throw new Conflict("not_ready", `episode ${f.episode.id} is not transcribed yet (it is ${f.episode.status})`, {
    context: { status: f.episode.status },
  });
}

// Transcripts never change once written, so a few parsed ones are kept (a long one is megabytes of JSON).
const parsed = new Map<string, { words: TranscriptWord[]; segments: TranscriptSegment[] }>();
const KEEP_PARSED = 8;

export async function readTranscript(
  storage: Storage,
  key: string,
): Promise<{ words: TranscriptWord[]; segments: TranscriptSegment[] }> {
  const hit = parsed.get(key);
  if (hit) return hit;
  const doc = JSON.parse((await storage.read(key)).toString("utf8"));
  const t = {
    words: Array.isArray(doc.words) ? doc.words : [],
    segments: Array.isArray(doc.segments) ? doc.segments : [],
  };
  parsed.set(key, t);
  if (parsed.size > KEEP_PARSED) parsed.delete(parsed.keys().next().value!);
  return t;
}

/** The account's clip and its episode's files; another account's clip is not found. */
export async function clipFiles(
  d: FilesDeps,
  accountId: string,
  clipId: string,
): Promise<{ clip: ClipRow; files: EpisodeFiles }> {
  const { rows } = await d.db.query(`select * from clips where id = $1 and account_id = $2`, [clipId, accountId]);
  if (!rows[0]) throw new NotFound("not_found", `no clip ${clipId} on this account`, { context: { field: "id" } });
  const clip = toClip(rows[0]);
  return { clip, files: await episodeFiles(d, accountId, clip.episode_id) };
}

/** A clip's pieces in source seconds (as cut, else as found; one piece when it has none listed). */
export function clipPieces(clip: ClipRow): Array<{ start: number; end: number }> {
  const listed = (clip.cut?.pieces ?? clip.data.pieces) as Array<{ start: unknown; end: unknown }> | undefined;
  const pieces = Array.isArray(listed)
    ? listed
        .map((p) => ({ start: Number(p?.start), end: Number(p?.end) }))
        .filter((p) => Number.isFinite(p.start) && p.end > p.start)
    : [];
  return pieces.length ? pieces : [{ start: Number(clip.data.start ?? 0), end: Number(clip.data.end ?? 0) }];
}

/** Where a clip starts in its source: its first piece's start (a clip may be several pieces). */
export function clipStart(clip: ClipRow): number {
  return clipPieces(clip)[0]!.start;
}

function numberOr(v: unknown): number | undefined {
  const n = Number(v);
  return v !== undefined && v !== null && Number.isFinite(n) ? n : undefined;
}
