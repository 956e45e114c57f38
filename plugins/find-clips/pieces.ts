/**
 * The spans of a clip worth keeping: the clip's words are joined into pieces, and long silences
 * and isolated fillers between them are left out of the render.
 */
import { FILLERS, tokens, type Word } from "./text.js";

/** Silences longer than this inside a clip are cut out. */
const CUT_SILENCE = 1.2;
/** A gap holding a filler word ("um") this long or longer is cut out. */
const CUT_FILLER = 0.5;
export const round = (v: number) => Math.round(v * 1000) / 1000;

/** The spans of a run of words worth keeping: long silences and isolated fillers are dropped. */
export function toPieces(words: Word[], bounds: { start: number; end: number }) {
  const pieces: Array<{ start: number; end: number }> = [];
  let start = bounds.start;
  let prev: Word | undefined;
  let skippingFiller = false;
  for (const w of words) {
    const isFiller = FILLERS.has(tokens(w.text)[0] ?? "");
    if (prev && isFiller) {
      // Look at the gap this filler sits in: cut only when removing it leaves a clean join.
      skippingFiller = true;
      continue;
    }
    if (prev) {
      const gap = w.start - prev.end;
      const cut = skippingFiller ? gap >= CUT_FILLER : gap >= CUT_SILENCE;
      if (cut) {
        pieces.push({ start, end: prev.end + (skippingFiller ? 0.1 : 0.25) });
        start = w.start - (skippingFiller ? 0.08 : 0.2);
      }
    }
    skippingFiller = false;
    prev = w;
  }
  pieces.push({ start, end: bounds.end });
  return pieces.map((p) => ({ start: round(p.start), end: round(p.end) })).filter((p) => p.end - p.start > 0.05);
}

/** Audio level per 10 ms frame (dBFS) over a range of the recording, from `start` (seconds). */
export interface Frames {
  start: number;
  db: Float32Array;
}
export const FRAME = 0.01;
/** Kept each side of a confirmed silence, so that a cut never shaves a word's first or last sound. */
const MARGIN = 0.08;
/** A silence shorter than this (after the margins) is not worth a cut. */
const MIN_CUT = 0.3;

/**
 * The level below which a frame is silent: 30 dB under the loud speech of the range, but never
 * below the range's own noise floor plus 6 dB (a noisy room has no digital silence).
 */
function silenceLevel(db: Float32Array): number {
  const sorted = [...db].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? -90;
  return Math.max(at(0.05) + 6, Math.min(-30, at(0.95) - 30));
}

/** The longest run of silent frames inside [from, to] (seconds), or undefined. */
function longestSilence(
  f: Frames,
  level: number,
  from: number,
  to: number,
): { start: number; end: number } | undefined {
  let best: { start: number; end: number } | undefined;
  let runStart = -1;
  const first = Math.max(0, Math.floor((from - f.start) / FRAME));
  const last = Math.min(f.db.length, Math.ceil((to - f.start) / FRAME));
  for (let i = first; i <= last; i++) {
    const silent = i < last && f.db[i]! < level;
    if (silent && runStart < 0) runStart = i;
    if (!silent && runStart >= 0) {
      const run = { start: f.start + runStart * FRAME, end: f.start + i * FRAME };
      if (!best || run.end - run.start > best.end - best.start) best = run;
      runStart = -1;
    }
  }
  return best;
}

/**
 * Holds each cut between pieces (a gap between recognised words) to what the audio confirms: only
 * the longest silent stretch inside the gap is cut, less a margin each side, and a gap with no such
 * silence is not cut at all. Word times from a recogniser can claim a gap that still holds the end
 * of a word; the audio has the last say.
 */
export function confirmGaps(
  pieces: Array<{ start: number; end: number }>,
  frames: Frames,
): Array<{ start: number; end: number }> {
  if (pieces.length < 2 || !frames.db.length) return pieces;
  const level = silenceLevel(frames.db);
  const out = [{ ...pieces[0]! }];
  for (const next of pieces.slice(1)) {
    const prev = out[out.length - 1]!;
    const quiet = longestSilence(frames, level, prev.end, next.start);
    if (!quiet || quiet.end - quiet.start - 2 * MARGIN < MIN_CUT) {
      prev.end = next.end; // nothing confirmed: the two pieces join again
      continue;
    }
    prev.end = round(Math.max(prev.end, quiet.start + MARGIN));
    out.push({ start: round(Math.min(next.start, quiet.end - MARGIN)), end: next.end });
  }
  return out;
}
