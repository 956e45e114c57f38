/**
 * The transcript as the episode page lists it: one line per segment with its times, searchable.
 * A long episode has a few thousand segments; the answer holds at most TRANSCRIPT_LIMIT of them
 * and says how many matched in all, so a page asks with `q` to find the rest.
 */
import { createHash } from "node:crypto";
import type { CaptionStyle } from "../render/ass.js";
import type { TranscriptSegment } from "../render/captions.js";

export const TRANSCRIPT_LIMIT = 2000;

export interface TranscriptLines {
  segments: Array<{ start: number; end: number; text: string }>;
  /** Segments that matched (all of them without `q`), whether or not all are in `segments`. */
  total: number;
  /** The most segments one answer holds. */
  limit: number;
  /** True when more segments matched than the answer holds. */
  truncated: boolean;
}

/** Lower case with runs of white space as one space, so "Ask  not" finds "ask not". */
const fold = (s: string) => s.toLowerCase().replace(/\s+/g, " ").trim();

export function transcriptLines(t: { segments: TranscriptSegment[] }, q?: string): TranscriptLines {
  const needle = q === undefined ? "" : fold(q);
  const segments: TranscriptLines["segments"] = [];
  let total = 0;
  for (const s of t.segments) {
    const text = String(s.text ?? "").trim();
    if (!text || (needle && !fold(text).includes(needle))) continue;
    total++;
    if (segments.length < TRANSCRIPT_LIMIT) segments.push({ start: round(s.start), end: round(s.end), text });
  }
  return { segments, total, limit: TRANSCRIPT_LIMIT, truncated: total > segments.length };
}

/** A short digest of a style's definition, so an edited style gets a new preview. */
export function styleVersion(style: CaptionStyle): string {
  return createHash("sha256").update(JSON.stringify(style)).digest("hex").slice(0, 10);
}

const round = (n: number) => Math.round(Number(n) * 1000) / 1000;
