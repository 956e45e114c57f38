/**
 * Joining chunk results into one transcript: shift chunk-relative times by the chunk's start,
 * keep words inside their chunk and the media, keep them in order, then group them into segments.
 */
import type { TranscriptSegment, TranscriptWord } from "../../daemon/render/captions.js";
import type { ChunkResult } from "./engines/types.js";

export interface PlacedChunk {
  start: number;
  end: number;
  result: ChunkResult;
}

const r3 = (n: number) => Math.round(n * 1000) / 1000;

/** Offsets and clamps words; `hint[i]` tells which engine segment word i came from (-1: none). */
export function stitchWords(chunks: PlacedChunk[], duration: number): { words: TranscriptWord[]; hint: number[] } {
  const words: TranscriptWord[] = [];
  const hint: number[] = [];
  let segBase = 0;
  let last = 0;
  for (const c of chunks) {
    const segs = c.result.segments ?? [];
    const placed = c.result.words
      .map((w) => ({ ...w, start: w.start + c.start, end: w.end + c.start }))
      .sort((a, b) => a.start - b.start);
    for (const w of placed) {
      const lo = Math.max(c.start, last);
      const hi = Math.min(c.end, duration);
      const start = Math.min(Math.max(w.start, lo), hi);
      const end = Math.min(Math.max(w.end, start), hi);
      const rel = (w.start + w.end) / 2 - c.start;
      const seg = segs.findIndex((s) => rel >= s.start && rel <= s.end);
      // An engine that tells speakers apart (a diarizing model) labels its words; keep the label.
      words.push({
        text: w.text,
        start: r3(start),
        end: r3(end),
        confidence: r3(w.confidence),
        ...(w.speaker ? { speaker: w.speaker } : {}),
      });
      hint.push(seg < 0 ? -1 : segBase + seg);
      last = start;
    }
    segBase += segs.length;
  }
  return { words, hint };
}

/**
 * Groups words into segments: a new one at a pause of `pauseSeconds`, after a sentence end once
 * the segment has some length, at an engine segment boundary, or past `maxSeconds`.
 * A change of speaker (words labelled by _speakers.ts) also starts a segment; words without a
 * label belong to S1.
 */
export function toSegments(
  words: TranscriptWord[],
  hint: number[] = [],
  opts: { pauseSeconds?: number; maxSeconds?: number } = {},
): TranscriptSegment[] {
  const pause = opts.pauseSeconds ?? 1.0;
  const max = opts.maxSeconds ?? 30;
  const out: TranscriptSegment[] = [];
  let first = 0;
  const close = (end: number) => {
    if (end <= first) return;
    const ws = words.slice(first, end);
    out.push({
      start: ws[0]!.start,
      end: ws[ws.length - 1]!.end,
      text: ws.map((w) => w.text).join(" "),
      speaker: ws[0]!.speaker ?? "S1",
      words: [first, end],
    });
    first = end;
  };
  for (let i = 1; i < words.length; i++) {
    const prev = words[i - 1]!;
    const w = words[i]!;
    const h0 = hint[i - 1] ?? -1;
    const h1 = hint[i] ?? -1;
    const sentenceEnd = /[.!?]["')\]]?$/.test(prev.text) && prev.end - words[first]!.start >= 3;
    const turn = (w.speaker ?? "S1") !== (prev.speaker ?? "S1");
    if (
      turn ||
      w.start - prev.end >= pause ||
      sentenceEnd ||
      (h0 >= 0 && h1 >= 0 && h0 !== h1) ||
      w.end - words[first]!.start > max
    ) {
      close(i);
    }
  }
  close(words.length);
  return out;
}
