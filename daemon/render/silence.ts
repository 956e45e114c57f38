/**
 * Silences confirmed against the recording: the audio level per 10 ms over a range, and the rule
 * that holds a cut between two pieces of a clip to the longest silent stretch inside the gap. The
 * clip finder's pause cuts (plugins/find-clips) and the cut stage's pace (pace.ts) share it, so a
 * gap is only ever cut where the audio is quiet, never on word times alone.
 */
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { SAFE_INPUT, runFfmpeg } from "./render.js";

/** Audio level per 10 ms frame (dBFS) over a range of the recording, from `start` (seconds). */
export interface Frames {
  start: number;
  db: Float32Array;
}
export const FRAME = 0.01;
const RATE = 8000;

const round = (v: number) => Math.round(v * 1000) / 1000;

/** Reads the audio level per FRAME over a range of a media file (decoded to 8 kHz mono). */
export async function measureFrames(
  file: string,
  range: { start: number; end: number },
  opts: { workdir: string; signal?: AbortSignal },
): Promise<Frames> {
  const out = path.join(opts.workdir, `frames-${range.start.toFixed(2)}.f32`);
  await runFfmpeg(
    [
      ...SAFE_INPUT,
      "-ss",
      range.start.toFixed(3),
      "-t",
      (range.end - range.start).toFixed(3),
      "-vn",
      "-i",
      file,
      "-ac",
      "1",
      "-ar",
      String(RATE),
      "-f",
      "f32le",
      out,
    ],
    { signal: opts.signal, cwd: opts.workdir },
  );
  const buf = await readFile(out);
  await rm(out, { force: true });
  const samples = new Float32Array(buf.buffer, buf.byteOffset, Math.floor(buf.byteLength / 4));
  const per = Math.round(RATE * FRAME);
  const db = new Float32Array(Math.floor(samples.length / per));
  for (let f = 0; f < db.length; f++) {
    let sum = 0;
    for (let i = f * per; i < (f + 1) * per; i++) sum += samples[i]! * samples[i]!;
    db[f] = Math.max(-90, 10 * Math.log10(sum / per + 1e-12));
  }
  return { start: range.start, db };
}

/**
 * How a gap is cut: `margin` of silence is kept each side of the cut (so a cut never shaves a
 * word's first or last sound), and a cut shorter than `minCut` is not worth making.
 */
export interface CutRule {
  margin: number;
  minCut: number;
}
/** The clip finder's pause cuts: long silences, kept loose. */
export const PAUSE_RULE: CutRule = { margin: 0.08, minCut: 0.3 };

/**
 * The level below which a frame is silent: 30 dB under the loud speech of the range, but never
 * below the range's own noise floor plus 6 dB (a noisy room has no digital silence).
 */
export function silenceLevel(db: Float32Array): number {
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
  rule: CutRule = PAUSE_RULE,
): Array<{ start: number; end: number }> {
  if (pieces.length < 2 || !frames.db.length) return pieces;
  const level = silenceLevel(frames.db);
  const out = [{ ...pieces[0]! }];
  for (const next of pieces.slice(1)) {
    const prev = out[out.length - 1]!;
    const quiet = longestSilence(frames, level, prev.end, next.start);
    if (!quiet || quiet.end - quiet.start - 2 * rule.margin < rule.minCut) {
      prev.end = next.end; // nothing confirmed: the two pieces join again
      continue;
    }
    prev.end = round(Math.max(prev.end, quiet.start + rule.margin));
    out.push({ start: round(Math.min(next.start, quiet.end - rule.margin)), end: next.end });
  }
  return out;
}
