/**
 * The silence at a join between two pieces of a clip, trimmed for the `tight` pace (issue 39). The
 * clip finder leaves room each side of its cuts (a quarter second after a piece's last word, a
 * fifth before the next piece's first, more where the audio check widened the cut), so its joins
 * kept half a second of silence when every other pause was cut to TIGHT_KEEP. Here the tail after
 * the last word and the head before the first word are cut down to `keep / 2` each, and only where
 * the audio is silent: the cut starts where the sound after the last word stops (and ends where
 * the sound before the first word starts), so a word whose recognised times are early or late is
 * still kept whole.
 */
import { FRAME, silenceLevel, type Frames } from "./silence.js";
import type { Piece, TimedWord } from "./timeline.js";

const round = (v: number) => Math.round(v * 1000) / 1000;
const inside = (p: Piece) => (w: TimedWord) => (w.start + w.end) / 2 >= p.start && (w.start + w.end) / 2 < p.end;

/**
 * The first silent stretch in [from, to) that lasts `min` seconds or runs to the end of the span
 * (scanning forward), or the last one that does so back to its start (scanning backward): where
 * speech stops after `from`, or starts again before `to`.
 */
function silentRun(f: Frames, level: number, from: number, to: number, min: number, backward: boolean) {
  const first = Math.max(0, Math.round((from - f.start) / FRAME));
  const last = Math.min(f.db.length, Math.round((to - f.start) / FRAME));
  const need = Math.max(1, Math.round(min / FRAME));
  const step = backward ? -1 : 1;
  let run = 0;
  for (let i = backward ? last - 1 : first; backward ? i >= first : i < last; i += step) {
    run = f.db[i]! < level ? run + 1 : 0;
    const atEdge = backward ? i === first : i === last - 1;
    if (run >= need || (run > 0 && atEdge)) {
      // Follow the run to its far end, so the whole silence is known.
      let j = i;
      while (j + step >= first && j + step < last && f.db[j + step]! < level) j += step;
      const [a, b] = backward ? [j, i + run] : [i - run + 1, j + 1];
      return { start: f.start + a * FRAME, end: f.start + b * FRAME };
    }
  }
  return undefined;
}

/**
 * Shortens the silence kept around the join of `a` and `b` (changed in place): `a` ends `keep / 2`
 * after the sound of its last word stops, `b` starts `keep / 2` before the sound of its first word.
 * A piece is only ever shortened, and a side with no words or no silence is left as it was.
 */
export function tightenJoin(a: Piece, b: Piece, words: TimedWord[], frames: Frames, keep: number): void {
  if (!frames.db.length) return;
  const level = silenceLevel(frames.db);
  const half = keep / 2;
  const lastEnd = Math.max(...words.filter(inside(a)).map((w) => w.end));
  if (Number.isFinite(lastEnd) && lastEnd < a.end) {
    const quiet = silentRun(frames, level, Math.max(a.start, lastEnd), a.end, keep, false);
    if (quiet) a.end = round(Math.max(a.start, Math.min(a.end, quiet.start + half)));
  }
  const firstStart = Math.min(...words.filter(inside(b)).map((w) => w.start));
  if (Number.isFinite(firstStart) && firstStart > b.start) {
    const quiet = silentRun(frames, level, b.start, Math.min(b.end, firstStart), keep, true);
    if (quiet) b.start = round(Math.min(b.end, Math.max(b.start, quiet.end - half)));
  }
}
