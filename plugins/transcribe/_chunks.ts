/**
 * How many chunks, and where to cut them. Chunks are what runs in parallel, so the count follows
 * the cores as well as the length:
 * - at least `ceil(duration / target)` chunks, so none is much longer than `chunk_seconds`;
 * - at least `concurrency` chunks (the worker's cores by default), so a 6-minute recording keeps
 *   every core busy instead of one;
 * - rounded up to a multiple of `concurrency`, so the last wave of chunks is not one chunk alone
 *   on one core while the others idle;
 * - but no chunk shorter than `min_seconds` (the floor): a recogniser loses context and accuracy at
 *   the edges of very short pieces, so an 11-second clip stays one chunk.
 * Boundaries sit at even shares of the duration and move to the best silence near each, so the
 * chunks stay about equal (they finish together) and no word is cut in half where a silence exists.
 */
import type { Span } from "../../daemon/render/audio.js";

export interface ChunkPlanOptions {
  /** Longest wanted chunk, seconds (`chunk_seconds`, or the engine's limit when smaller). */
  target: number;
  /** Chunks run at once (the cores, unless set). */
  concurrency: number;
  /** Shortest chunk allowed, seconds. */
  min_seconds: number;
}

/** The number of chunks for a recording of `duration` seconds (see the module comment). */
export function chunkCount(duration: number, o: ChunkPlanOptions): number {
  if (!(duration > 0)) return 0;
  const byLength = Math.ceil(duration / o.target);
  const conc = Math.max(1, o.concurrency);
  const wanted = Math.ceil(Math.max(byLength, conc) / conc) * conc;
  const floorAllows = Math.max(1, Math.floor(duration / Math.max(1, o.min_seconds)));
  // The floor wins over the cores, never over the target: a chunk may not run past the target.
  return Math.max(byLength, Math.min(wanted, floorAllows));
}

/**
 * Cuts [0, duration) into `chunkCount` spans. Each cut is the middle of a silence within a quarter
 * of a share of its even position (long silences near it preferred), else the even position itself.
 */
export function planTranscribeChunks(duration: number, silences: Span[], o: ChunkPlanOptions): Span[] {
  const n = chunkCount(duration, o);
  if (n === 0) return [];
  const share = duration / n;
  const window = share * 0.25;
  const cuts: number[] = [];
  let prev = 0;
  for (let i = 1; i < n; i++) {
    const ideal = i * share;
    let best = ideal;
    let bestScore = Infinity;
    for (const s of silences) {
      const mid = (s.start + s.end) / 2;
      if (mid <= prev + share * 0.5 || Math.abs(mid - ideal) > window) continue;
      // Distance from the even point costs; silence length (up to 2 s) earns, in units of the window.
      const score = Math.abs(mid - ideal) / window - Math.min(s.end - s.start, 2) * 0.25;
      if (score < bestScore) {
        best = mid;
        bestScore = score;
      }
    }
    cuts.push(best);
    prev = best;
  }
  const edges = [0, ...cuts, duration];
  return edges.slice(0, -1).map((start, i) => ({ start, end: edges[i + 1]! }));
}
