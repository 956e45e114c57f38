/**
 * A clip's captions as its viewer shows them: on the clip's own timeline, with speakers, masked
 * where its look censors. Split from clip-jobs.ts because it reads the transcript and renders
 * nothing; ClipJobs.captions finds the clip and calls this.
 */
import { toCues, type TranscriptWord } from "../render/captions.js";
import { censorWords, loadWordList } from "../render/censor.js";
import { retimeWords } from "../render/timeline.js";
import { jsonColumn } from "../store/_columns.js";
import type { ClipLooks } from "./clip-look.js";
import type { ClipRow, EpisodeDeps } from "./episode-rows.js";
import { clipEpisodeWords, readTranscript, timelineOf } from "./clip-spans.js";

export type ClipCaptions = {
  clip: ClipRow;
  captions: Array<{ id: string; start_seconds: number; end_seconds: number; speaker: string; text: string }>;
};

/** The clip's captions on its own timeline (seconds from the clip's start), with speakers. */
export async function captionsOf(deps: EpisodeDeps, looks: ClipLooks, clip: ClipRow): Promise<ClipCaptions> {
  const { rows } = await deps.db.query(`select state from episodes where id = $1`, [clip.episode_id]);
  const t = await readTranscript(deps.storage, jsonColumn(rows[0]?.state));
  if (!t) return { clip, captions: [] };
  // The clip's edited words where it has them; each keeps its transcript index, so a caption's
  // speaker comes from its segment. The timeline is its cut's (a pace moves the words; timelineOf).
  let words = retimeWords(clipEpisodeWords(t, clip), timelineOf(clip)) as Array<TranscriptWord & { i: number }>;
  // A clip whose look censors shows its listed words masked here as in its frames; a mask keeps
  // a word's length, so the cues and their times are the same as unmasked.
  if ((await looks.current(deps.db, clip)).look.censor !== "off")
    words = censorWords(words, loadWordList(deps.config.render?.censor_words || undefined), {
      lowConfidence: deps.config.render?.censor_low_confidence === true,
    }).words;
  const speakerOf = (i: number) => (t.segments ?? []).find((s) => i >= s.words[0] && i < s.words[1])?.speaker ?? "S1";
  const captions = toCues(words).map((c, n) => ({
    id: String(n + 1),
    start_seconds: c.start,
    end_seconds: c.end,
    speaker: speakerOf(words[c.words[0]]!.i),
    text: c.lines.join(" "),
  }));
  return { clip, captions };
}
