/**
 * A clip's pieces as the editor sends them (issue 31): a trim handle dragged to a word's edge, or a
 * cut pause put back (two pieces joined). The editor snaps to word and sentence edges as it draws;
 * the server snaps again, to the nearest word edge within half a second, so a hand-made request
 * cannot start a clip mid-word, and holds the result to the episode and to CLIP_SECONDS.
 */
import { CLIP_SECONDS, SpanRefusal, type EpisodeWord } from "./clip-words.js";
import type { Piece } from "../render/timeline.js";

/** How far an edge may move to reach a word's edge. */
const SNAP_S = 0.5;
const round = (v: number) => Math.round(v * 1000) / 1000;

function nearest(edges: number[], t: number): number {
  let best = t;
  let gap = SNAP_S;
  for (const e of edges) {
    const d = Math.abs(e - t);
    if (d < gap) [best, gap] = [e, d];
  }
  return best;
}

/**
 * The pieces snapped to word edges (a start to a word's start, an end to a word's end), sorted, with
 * touching or overlapping pieces joined. Refuses (field `pieces`) a clip outside the episode or
 * outside CLIP_SECONDS.
 */
export function snapPieces(
  words: Array<Pick<EpisodeWord, "start" | "end">>,
  pieces: Piece[],
  duration: number,
): Piece[] {
  const starts = words.map((w) => w.start);
  const ends = words.map((w) => w.end);
  const snapped = pieces
    .map((p) => ({ start: round(nearest(starts, p.start)), end: round(nearest(ends, p.end)) }))
    .sort((a, b) => a.start - b.start);
  const out: Piece[] = [];
  for (const p of snapped) {
    if (p.start < 0 || (duration > 0 && p.end > duration + 0.05))
      throw new SpanRefusal(
        "pieces",
        `a piece (${p.start} s to ${p.end} s) lies outside the episode (0 to ${duration} s)`,
      );
    if (p.end - p.start < 0.05) throw new SpanRefusal("pieces", `a piece (${p.start} s to ${p.end} s) is empty`);
    const last = out.at(-1);
    if (last && p.start <= last.end + 0.01) last.end = Math.max(last.end, p.end);
    else out.push({ ...p });
  }
  const len = out.reduce((a, p) => a + p.end - p.start, 0);
  if (len < CLIP_SECONDS.min || len > CLIP_SECONDS.max)
    throw new SpanRefusal(
      "pieces",
      `the clip would be ${len.toFixed(1)} s long; it must be ${CLIP_SECONDS.min} to ${CLIP_SECONDS.max} s`,
    );
  return out;
}

/** Whether two lists of pieces are the same to the millisecond. */
export const samePieces = (a: Piece[], b: Piece[]) =>
  a.length === b.length &&
  a.every((p, i) => Math.abs(p.start - b[i]!.start) < 0.001 && Math.abs(p.end - b[i]!.end) < 0.001);
