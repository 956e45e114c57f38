/**
 * The studio's arithmetic, free of React and the browser so it is tested on its own
 * (test/unit/studio-timeline.test.ts): times as people read them, where clips sit on the waveform,
 * the order clips are shown in, and how a Preview walks a clip's pieces through the source.
 */
import type { Clip, Piece } from "../types";

/** Seconds as m:ss, or h:mm:ss from an hour (what the API's own `start` and `length` look like). */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

/** A clip's pieces, from the media answer when it has them, else the clip's start to its end. */
export function piecesOf(clip: Pick<Clip, "start_seconds" | "end_seconds">, known?: Piece[]): Piece[] {
  const good = (known ?? []).filter((p) => Number.isFinite(p.start) && Number.isFinite(p.end) && p.end > p.start);
  if (good.length) return [...good].sort((a, b) => a.start - b.start);
  return clip.end_seconds > clip.start_seconds ? [{ start: clip.start_seconds, end: clip.end_seconds }] : [];
}

export interface Mark {
  /** Percent of the strip's width from its left edge. */
  left: number;
  /** Percent of the strip's width; at least `minWidth` so a short piece stays visible and clickable. */
  width: number;
  start: number;
  end: number;
}

/**
 * Where a clip's pieces sit on a waveform strip of `duration` seconds, in percent. Pieces past the
 * end are clipped to it; nothing is drawn without a known duration.
 */
export function marksFor(pieces: Piece[], duration: number | null | undefined, minWidth = 0.6): Mark[] {
  if (!duration || !(duration > 0)) return [];
  const out: Mark[] = [];
  for (const p of pieces) {
    const start = Math.max(0, Math.min(p.start, duration));
    const end = Math.max(start, Math.min(p.end, duration));
    if (end <= start && p.start >= duration) continue;
    const width = Math.max(minWidth, ((end - start) / duration) * 100);
    const left = Math.min((start / duration) * 100, 100 - width);
    out.push({ left: round(Math.max(0, left)), width: round(width), start, end });
  }
  return out;
}

const round = (n: number) => Math.round(n * 100) / 100;

/** Best first: by score (clips without one last), then in the episode's own order. */
export function ranked<T extends Pick<Clip, "score" | "number">>(clips: T[]): T[] {
  return [...clips].sort((a, b) => (b.score ?? -Infinity) - (a.score ?? -Infinity) || a.number - b.number);
}

/** What a Preview does at playback time `t` while it is on piece `index`. */
export type PreviewStep = { kind: "play" } | { kind: "seek"; index: number; to: number } | { kind: "stop" };

/**
 * The next step of a Preview: keep playing inside the current piece, jump to the next piece's start
 * once this one's end is reached (a small tolerance, since players report time in steps), or stop
 * after the last. A time before the piece (the player was still seeking) keeps playing.
 */
export function previewStep(pieces: Piece[], index: number, t: number, tolerance = 0.05): PreviewStep {
  const piece = pieces[index];
  if (!piece) return { kind: "stop" };
  if (t < piece.end - tolerance) return { kind: "play" };
  const next = pieces[index + 1];
  return next ? { kind: "seek", index: index + 1, to: next.start } : { kind: "stop" };
}

/** The total length of a clip's pieces, in seconds. */
export const lengthOf = (pieces: Piece[]) => pieces.reduce((a, p) => a + (p.end - p.start), 0);
