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
import { lockEpisode, notFound, type EpisodeDeps } from "./episode-rows.js";
import type { AccountSurface } from "./surfaces.js";

export interface CaptionEdit {
  cues?: Array<{ id: string; text: string }>;
  start_sentence_delta?: number;
  end_sentence_delta?: number;
}

export type CaptionEditResult = RestyleResult & { start: number; end: number };

const refuse = (field: string, message: string) =>
  new Refused("invalid_request", `body field "${field}": ${message}`, { context: { field } });
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
    if (!edit.cues?.length && !startDelta && !endDelta) {
      throw refuse(
        "body",
        "names nothing to change: give cues (caption ids and their new text), start_sentence_delta " +
          "or end_sentence_delta",
      );
    }
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
          const picked: Array<{ cue: ClipCue; text: string }> = edit.cues.map((c, n) => {
            const cue = cues.find((x) => x.id === c.id);
            if (!cue)
              throw refuse(
                `cues.${n}.id`,
                `the clip has no caption "${c.id}" (ids 1 to ${cues.length}, as GET /clips/{id}/captions lists them)`,
              );
            if (seen.has(c.id)) throw refuse(`cues.${n}.id`, `caption "${c.id}" is named twice`);
            seen.add(c.id);
            if (!c.text.trim()) throw refuse(`cues.${n}.text`, "must hold at least one word");
            return { cue, text: c.text.trim().replace(/\s+/g, " ") };
          });
          const real = picked.filter((p) => p.text !== p.cue.text);
          if (real.length) {
            edits = replaceCues(words, real, edits);
            words = clipEpisodeWords(t, { ...clip, caption_words: edits } as typeof clip);
            for (const p of real) changes.push({ field: `caption ${p.cue.id}`, from: p.cue.text, to: p.text });
          }
        }
        const data = { ...clip.data };
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
        const current = await this.clips.looks.current(tx, clip);
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
        const kind = clip.cut && data.start === clip.data.start && data.end === clip.data.end ? "render" : "cut";
        const started = await this.clips.tryStartJob(tx, ep, edited, {
          kind,
          look: current.look,
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
