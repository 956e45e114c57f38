/**
 * What a clip's caption edits and a user's own clip times need of storage and the database: the
 * episode's words with a clip's edits laid over them, the edited words handed to a render, and a
 * clip made from the user's start and end. The arithmetic is in clip-words.ts.
 */
import { createHash, randomUUID } from "node:crypto";
import type { TranscriptSegment, TranscriptWord } from "../render/captions.js";
import { Conflict, Refused } from "../domain/errors.js";
import type { Storage } from "../storage/storage.js";
import { retimeWords, type Piece } from "../render/timeline.js";
import { jsonColumn } from "../store/_columns.js";
import type { Queryable } from "../store/db.js";
import {
  checkLength,
  editedWords,
  sentencesOf,
  snapToSentences,
  SpanRefusal,
  type CaptionEdits,
  type EpisodeWord,
} from "./clip-words.js";
import { toClip, type ClipRow, type EpisodeRow } from "./episode-rows.js";

export interface EpisodeTranscript {
  words: TranscriptWord[];
  segments: TranscriptSegment[];
}

/** The episode's transcript as stored by its import; undefined when it has none (yet). */
export async function readTranscript(
  storage: Storage,
  // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
  state: Record<string, any> | null | undefined,
): Promise<EpisodeTranscript | undefined> {
  const key: string | undefined = state?.transcript?.key;
  if (!key || !(await storage.exists(key))) return undefined;
  const t = JSON.parse((await storage.read(key)).toString("utf8"));
  return { words: Array.isArray(t.words) ? t.words : [], segments: Array.isArray(t.segments) ? t.segments : [] };
}

export const captionEditsOf = (clip: ClipRow): CaptionEdits | null =>
  jsonColumn((clip as ClipRow & { caption_words?: unknown }).caption_words ?? null);

/** The stretches of the episode a clip joins, as its definition (clip.data) says. */
export const piecesOf = (clip: ClipRow): Piece[] =>
  clip.data.pieces ?? clip.cut?.pieces ?? [{ start: clip.data.start, end: clip.data.end }];

/**
 * The clip's own timeline as its frames show it: the pieces its cut joined, while that cut spans
 * the clip as defined. A pace other than natural cuts other silences than the definition's pieces
 * (daemon/render/pace.ts), so captions follow the cut; after an edit moved the span, the
 * definition's pieces stand until the new cut is made.
 */
export function timelineOf(clip: ClipRow): Piece[] {
  const def = piecesOf(clip);
  const cut = clip.cut?.pieces as Piece[] | undefined;
  if (!Array.isArray(cut) || !cut.length) return def;
  const near = (a: number, b: number) => Math.abs(a - b) < 0.01;
  return near(cut[0]!.start, def[0]!.start) && near(cut.at(-1)!.end, def.at(-1)!.end) ? cut : def;
}

/** The episode's words as this clip shows them: the transcript with the clip's edits in place. */
export function clipEpisodeWords(t: EpisodeTranscript, clip: ClipRow): EpisodeWord[] {
  return editedWords(t.words, captionEditsOf(clip));
}

/**
 * The run input that makes a job burn the clip's edited words (none without edits). A cut re-reads
 * the transcript, so it gets one holding the clip's span with the edits; a render (restyle) reads
 * the cut's words file, so it gets a copy with the edited words on the clip's timeline.
 */
export async function editedRunInput(
  storage: Storage,
  ep: EpisodeRow,
  clip: ClipRow,
  kind: "cut" | "render",
  jobId: string,
): Promise<Record<string, unknown>> {
  if (!captionEditsOf(clip)) return {};
  const t = await readTranscript(storage, ep.state);
  if (!t) return {};
  const words = clipEpisodeWords(t, clip).map(({ i: _i, ...w }) => w);
  const base = `edits/${clip.id}/${jobId}`;
  if (kind === "cut") {
    const pieces = piecesOf(clip);
    const from = pieces[0]!.start - 1;
    const to = pieces.at(-1)!.end + 1;
    const key = `${base}.transcript.json`;
    await storage.write(
      key,
      JSON.stringify({ words: words.filter((w) => w.end > from && w.start < to), segments: [] }),
    );
    return { transcript: { ...ep.state.transcript, key } };
  }
  const cut = clip.cut ?? {};
  const doc =
    cut.words_key && (await storage.exists(cut.words_key))
      ? JSON.parse((await storage.read(cut.words_key)).toString("utf8"))
      : {};
  const key = `${base}.words.json`;
  await storage.write(key, JSON.stringify({ ...doc, words: retimeWords(words, cut.pieces ?? piecesOf(clip)) }));
  return { cut: { ...cut, words_key: key } };
}

/** A clip's title from its first sentence: at most 8 words. */
function _title(text: string): string {
  const words = text
    .replace(/[.!?…]+$/, "")
    .split(/\s+/)
    .filter(Boolean);
  return words.length > 8 ? `${words.slice(0, 8).join(" ")}…` : words.join(" ");
}

/**
 * The clip a user asked for by `{ start, end }` (seconds), item `n` of an export's `clips`: snapped
 * outward to whole sentences (every sentence the span overlaps is in, whole), held to CLIP_SECONDS,
 * and added to the episode after its clips (one piece, no pause cut). The same span asked again is
 * the clip made the first time.
 */
export async function customClip(
  tx: Queryable,
  storage: Storage,
  ep: EpisodeRow,
  clips: ClipRow[],
  want: { start: number; end: number },
  n: number,
): Promise<ClipRow> {
  const field = (k: string) => `clips.${n}.${k}`;
  const refuse = (f: string, message: string) =>
    new Refused("invalid_request", `body field "${f}": ${message}`, { context: { field: f } });
  // A search in flight numbers its new clips after those it was given: a clip made meanwhile would share a number.
  if (ep.status !== "ready")
    throw new Conflict(
      "episode_not_ready",
      `episode ${ep.id} is ${ep.status}; clips of your own times can be made once it is ready`,
      { context: { status: ep.status } },
    );
  const duration = Number(ep.duration_seconds ?? ep.state?.media?.duration ?? Infinity);
  if (!(want.end > want.start)) throw refuse(field("end"), "must be after start");
  if (want.start >= duration) throw refuse(field("start"), `must be before the episode's end (${duration} s)`);
  const t = await readTranscript(storage, ep.state);
  if (!t?.words.length) throw refuse(field("start"), "the episode has no transcript words to snap to");
  let span: { start: number; end: number; first: number };
  try {
    const sentences = sentencesOf(t.words);
    span = snapToSentences(sentences, want.start, Math.min(want.end, duration), {
      start: field("start"),
      end: field("end"),
    });
    checkLength(span.start, span.end, field("end"));
    const first = sentences[span.first]!;
    const ref = `u${createHash("sha1").update(`${span.start}|${span.end}`).digest("hex").slice(0, 5)}`;
    const same = clips.find((c) => c.ref === ref);
    if (same) return same;
    const number = Math.max(0, ...clips.map((c) => c.number)) + 1;
    const data = {
      number,
      ref,
      title: _title(first.text),
      hook: first.text,
      start: span.start,
      end: span.end,
      duration: +(span.end - span.start).toFixed(3),
      pieces: [{ start: span.start, end: span.end }],
      asked: { start: want.start, end: want.end },
      score: null,
    };
    const { rows } = await tx.query(
      `insert into clips (id, episode_id, account_id, number, ref, data) values ($1, $2, $3, $4, $5, $6) returning *`,
      [randomUUID(), ep.id, ep.account_id, number, ref, JSON.stringify(data)],
    );
    const row = toClip(rows[0]);
    clips.push(row);
    return row;
  } catch (err) {
    if (err instanceof SpanRefusal) throw refuse(err.field, err.message);
    throw err;
  }
}
