/**
 * The silences cut out of a clip, confirmed against the recording (daemon/render/silence.ts) and not
 * only against word times.
 */
import { confirmGaps, measureFrames } from "../../daemon/render/silence.js";
import { round } from "./pieces.js";

export { measureFrames };

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
