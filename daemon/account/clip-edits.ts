/**
 * Editing a clip before (or after) it renders (issue 19, item 4): new words for its caption cues,
 * kept at the cues' times, and whole sentences trimmed from or added to either end. The edit is
 * kept on the clip (clips.caption_words, clips.data) and renders as a new job, charged as a
 * restyle is (ClipJobs.tryStartJob: the episode's included exports, then the export price).
 *
 * Guarantees: as for a restyle (clip-jobs.ts), the clip's episode is locked, and the edit, the
 * charge, the job and its run commit together or not at all.
 */
import { Conflict, PaymentRequired, Refused } from "../domain/errors.js";
import { transactionWith, type Within } from "../store/db.js";
import { ClipJobs, type RestyleResult } from "./clip-jobs.js";
import { clipEpisodeWords, captionEditsOf, piecesOf, readTranscript, timelineOf } from "./clip-spans.js";
import { clipCues, replaceCues, sentencesOf, shiftBySentences, SpanRefusal, type ClipCue } from "./clip-words.js";
import { lockEpisode, notFound, type ClipLook, type EpisodeDeps } from "./episode-rows.js";
import { cutChanged, lookChanges, resolveLook } from "./clip-look.js";
import { samePieces, snapPieces } from "./clip-trim.js";
import { assertKit } from "../brand/run-input.js";
import type { Piece } from "../render/timeline.js";
import type { AccountSurface } from "./surfaces.js";

export interface CaptionEdit {
  cues?: Array<{ id: string; text: string; emphasis?: boolean[] }>;
  start_sentence_delta?: number;
  end_sentence_delta?: number;
  /** The clip editor's trim: the clip's pieces in episode seconds, snapped to word edges (clip-trim.ts). */
  pieces?: Piece[];
  /** The clip editor's look, rendered in the same job (as a restyle names it). */
  look?: ClipLook;
}

export type CaptionEditResult = RestyleResult & { start: number; end: number };

const refuse = (field: string, message: string) =>
  new Refused("invalid_request", `body field "${field}": ${message}`, { context: { field } });
const span = (p: Piece) => `${p.start}–${p.end} s`;
const clock = (s: number) => `${Math.floor(s / 60)}:${(s % 60).toFixed(1).padStart(4, "0")}`;

export class ClipEdits {
  constructor(
    private readonly deps: EpisodeDeps,
    private readonly clips: ClipJobs,
  ) {}

  async editCaptions(
    accountId: string,
    clipId: string,
    edit: CaptionEdit,
    opts: { origin: AccountSurface },
    within?: Within<CaptionEditResult>,
  ): Promise<CaptionEditResult> {
    const startDelta = edit.start_sentence_delta ?? 0;
    const endDelta = edit.end_sentence_delta ?? 0;
    const look = edit.look && Object.keys(edit.look).length ? edit.look : undefined;
    if (!edit.cues?.length && !startDelta && !endDelta && !edit.pieces?.length && !look) {
      throw refuse(
        "body",
        "names nothing to change: give cues (caption ids and their new text), start_sentence_delta, " +
          "end_sentence_delta, pieces or look",
      );
    }
    if (edit.pieces?.length && (startDelta || endDelta))
      throw refuse("pieces", "give pieces or sentence deltas, not both");
    return transactionWith(
      this.deps.db,
      async (tx) => {
        const found = await this.clips.getClip(accountId, clipId, tx);
        if (!found) throw notFound("clip", clipId);
        const ep = await lockEpisode(tx, accountId, found.episode_id);
        const clip = (await this.clips.getClip(accountId, clipId, tx))!; // again, under the episode lock
        if (clip.cut_status === "cutting")
          throw new Conflict("clip_not_cut", `clip ${clipId} is still being cut; retry when its job completes`, {
            context: { cut_status: clip.cut_status },
          });
        const t = await readTranscript(this.deps.storage, ep.state);
        if (!t?.words.length)
          throw new Conflict("no_transcript", `the episode of clip ${clipId} has no transcript words to edit`, {
            context: { field: "id" },
          });

        let words = clipEpisodeWords(t, clip);
        let edits = captionEditsOf(clip);
        const changes: Array<{ field: string; from: unknown; to: unknown }> = [];
        if (edit.cues?.length) {
          const cues = clipCues(words, timelineOf(clip));
          const seen = new Set<string>();
          const picked: Array<{ cue: ClipCue; text: string; emphasis?: boolean[] }> = edit.cues.map((c, n) => {
            const cue = cues.find((x) => x.id === c.id);
            if (!cue)
              throw refuse(
                `cues.${n}.id`,
                `the clip has no caption "${c.id}" (ids 1 to ${cues.length}, as GET /clips/{id}/captions lists them)`,
              );
            if (seen.has(c.id)) throw refuse(`cues.${n}.id`, `caption "${c.id}" is named twice`);
            seen.add(c.id);
            if (!c.text.trim()) throw refuse(`cues.${n}.text`, "must hold at least one word");
            return { cue, text: c.text.trim().replace(/\s+/g, " "), emphasis: c.emphasis };
          });
          const marks = (ws: Array<{ emphasis?: boolean }>) => ws.map((w) => w.emphasis ?? null).join();
          const real = picked.filter(
            (p) =>
              p.text !== p.cue.text ||
              (p.emphasis !== undefined && marks(p.emphasis.map((e) => ({ emphasis: e }))) !== marks(p.cue.words)),
          );
          if (real.length) {
            edits = replaceCues(words, real, edits);
            words = clipEpisodeWords(t, { ...clip, caption_words: edits } as typeof clip);
            for (const p of real) changes.push({ field: `caption ${p.cue.id}`, from: p.cue.text, to: p.text });
          }
        }
        const data = { ...clip.data };
        if (edit.pieces?.length) {
          try {
            const was = piecesOf(clip);
            const pieces = snapPieces(
              words,
              edit.pieces,
              Number(ep.duration_seconds ?? ep.state?.media?.duration ?? 0),
            );
            if (!samePieces(pieces, was)) {
              changes.push({ field: "pieces", from: was.map(span).join(", "), to: pieces.map(span).join(", ") });
              Object.assign(data, {
                start: pieces[0]!.start,
                end: pieces.at(-1)!.end,
                pieces,
                duration: +pieces.reduce((a, p) => a + p.end - p.start, 0).toFixed(3),
              });
            }
          } catch (err) {
            throw err instanceof SpanRefusal ? refuse(err.field, err.message) : err;
          }
        }
        if (startDelta || endDelta) {
          try {
            const moved = shiftBySentences(
              sentencesOf(words),
              { start: data.start, end: data.end, pieces: piecesOf(clip) },
              { start: startDelta, end: endDelta },
            );
            if (moved.start !== data.start)
              changes.push({ field: "start", from: clock(data.start), to: clock(moved.start) });
            if (moved.end !== data.end) changes.push({ field: "end", from: clock(data.end), to: clock(moved.end) });
            Object.assign(data, {
              start: moved.start,
              end: moved.end,
              pieces: moved.pieces,
              duration: +moved.pieces.reduce((a, p) => a + p.end - p.start, 0).toFixed(3),
            });
            if (startDelta) data.hook = moved.firstSentence.text;
          } catch (err) {
            throw err instanceof SpanRefusal ? refuse(err.field, err.message) : err;
          }
        }
        if (look?.brand_kit) await assertKit(tx, accountId, look.brand_kit);
        const current = await this.clips.looks.current(tx, clip);
        const nextLook = look ? resolveLook(current.look, look) : current.look;
        const lookMoves = lookChanges(current.look, nextLook);
        changes.push(...lookMoves);
        if (!changes.length) {
          if (!current.job) throw refuse("body", "changes nothing: every caption named already reads so");
          return {
            job: { ...current.job, status: ClipJobs.publicJobStatus(current.job), charged_cents: 0 },
            changes: [],
            start: data.start,
            end: data.end,
          };
        }
        await tx.query(`update clips set caption_words = $2, data = $3, updated_at = now() where id = $1`, [
          clip.id,
          edits ? JSON.stringify(edits) : null,
          JSON.stringify(data),
        ]);
        const edited = { ...clip, data, caption_words: edits } as typeof clip;
        // A new span is a new cut; new words alone burn again over the cut there is.
        const sameSpan =
          data.start === clip.data.start && data.end === clip.data.end && data.pieces === clip.data.pieces;
        const kind = clip.cut && sameSpan && !cutChanged(lookMoves) ? "render" : "cut";
        const started = await this.clips.tryStartJob(tx, ep, edited, {
          kind,
          look: nextLook,
          changes: changes as never,
          index: (await this.clips.exportCount(tx, ep.id)) + 1,
          prevRender: clip.render,
          origin: opts.origin,
        });
        if (started instanceof PaymentRequired) throw started;
        return { job: started, changes: changes as never, start: data.start, end: data.end };
      },
      within,
    );
  }
}
