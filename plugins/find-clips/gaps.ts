/**
 * Reads the audio level per 10 ms over a clip's range, so that the silences cut out of a clip are
 * confirmed against the recording (pieces.ts, confirmGaps) and not only against word times.
 */
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { SAFE_INPUT, runFfmpeg } from "../../daemon/render/render.js";
import { confirmGaps, FRAME, round, type Frames } from "./pieces.js";

const RATE = 8000;

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

/** The clips with their cuts confirmed against the audio; a clip the audio cannot be read for is kept as it was. */
export async function confirmClipGaps<
  C extends { start: number; end: number; duration: number; pieces: Array<{ start: number; end: number }> },
>(clips: C[], file: string, opts: { workdir: string; signal?: AbortSignal; skip?: (c: C) => boolean }): Promise<C[]> {
  const out: C[] = [];
  for (const c of clips) {
    if (c.pieces.length < 2 || opts.skip?.(c)) {
      out.push(c);
      continue;
    }
    const pieces = confirmGaps(c.pieces, await measureFrames(file, c, opts));
    out.push({ ...c, pieces, duration: round(pieces.reduce((a, p) => a + (p.end - p.start), 0)) });
  }
  return out;
}
