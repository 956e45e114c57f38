/**
 * A clip's pace: which silences between words are left out of the render (issue 29, item 7).
 *
 * - `natural` keeps the clip's pieces as the clip finder made them (pauses of 1.2 s or more and
 *   isolated fillers cut out).
 * - `tight` also shortens every gap between words longer than TIGHT_GAP to about TIGHT_KEEP, the
 *   rhythm of edited talk. Each new cut is confirmed against the audio like the finder's
 *   (silence.ts): only the silent stretch inside the gap goes, so a cut never lands inside a word.
 *   The joins the finder made count as gaps too (issue 39): the silence it left each side of a
 *   join (a piece's tail after its last word, the next piece's head before its first) is trimmed
 *   to TIGHT_KEEP / 2, again only where the audio is silent.
 * - `off` joins the pieces back into one: nothing is cut out at all.
 *
 * Only the pieces change; captions and crops are made from the pieces (timeline.ts re-times the
 * words), so they follow the new timeline.
 */
import type { Piece, TimedWord } from "./timeline.js";
import { confirmGaps, measureFrames, type CutRule } from "./silence.js";
import { tightenJoin } from "./joins.js";

export const PACES = ["natural", "tight", "off"] as const;
export type Pace = (typeof PACES)[number];
export const DEFAULT_PACE: Pace = "natural";

/** Under `tight`, gaps between words longer than this (seconds) are shortened. */
export const TIGHT_GAP = 0.4;
/** What a shortened gap keeps (seconds): half of it each side of the cut. */
export const TIGHT_KEEP = 0.15;
const TIGHT_RULE: CutRule = { margin: TIGHT_KEEP / 2, minCut: TIGHT_GAP - TIGHT_KEEP };

export const isPace = (v: unknown): v is Pace => (PACES as readonly unknown[]).includes(v);

/** All the pieces as one: the clip from its first piece's start to its last piece's end. */
export function onePiece(pieces: Piece[]): Piece[] {
  if (pieces.length < 2) return pieces;
  return [{ start: pieces[0]!.start, end: pieces.at(-1)!.end }];
}

/**
 * A piece split at each gap between its words longer than TIGHT_GAP, on word times alone: each
 * part ends at a word's end and the next starts at the next word's start (the audio check then
 * widens both to keep TIGHT_KEEP of the silence).
 */
export function splitAtGaps(piece: Piece, words: TimedWord[]): Piece[] {
  const inside = words
    .filter((w) => {
      const mid = (w.start + w.end) / 2;
      return mid >= piece.start && mid < piece.end;
    })
    .sort((a, b) => a.start - b.start);
  const out: Piece[] = [];
  let start = piece.start;
  for (let i = 1; i < inside.length; i++) {
    const prev = inside[i - 1]!;
    const next = inside[i]!;
    if (next.start - prev.end <= TIGHT_GAP) continue;
    out.push({ start, end: prev.end });
    start = next.start;
  }
  out.push({ start, end: piece.end });
  return out;
}

/**
 * The pieces a pace renders. `tight` reads the audio over the clip (one ffmpeg decode of its span),
 * confirms each new cut inside a piece and trims the silence at each join between pieces; the
 * clip's own cuts (the finder's, already confirmed, and its filler cuts) are kept, only the silence
 * left beside them shrinks.
 */
export async function pacePieces(
  pace: Pace,
  pieces: Piece[],
  opts: { words: TimedWord[]; source: string; workdir: string; signal?: AbortSignal },
): Promise<Piece[]> {
  if (pace === "off") return onePiece(pieces);
  if (pace !== "tight" || !pieces.length) return pieces;
  const split = pieces.map((p) => splitAtGaps(p, opts.words));
  if (pieces.length < 2 && split.every((s) => s.length < 2)) return pieces;
  const frames = await measureFrames(opts.source, { start: pieces[0]!.start, end: pieces.at(-1)!.end }, opts);
  const parts = split.map((s) => (s.length < 2 ? s.map((p) => ({ ...p })) : confirmGaps(s, frames, TIGHT_RULE)));
  for (let i = 1; i < parts.length; i++)
    tightenJoin(parts[i - 1]!.at(-1)!, parts[i]![0]!, opts.words, frames, TIGHT_KEEP);
  return parts.flat();
}
