/**
 * The clip editor's arithmetic, without React: a draft's pieces after a trim handle moves (snapped
 * to the nearest word or sentence edge) or a cut pause is put back, and times between the
 * episode's timeline (source seconds) and the clip's own (its pieces laid end to end).
 */
import type { Piece } from "../types";

export interface EditorWord {
  text: string;
  start: number;
  end: number;
  cue: string | null;
  emphasis?: boolean;
}

export interface EditorView {
  clip_id: string;
  episode_id: string;
  number: number;
  title: string;
  episode_duration: number;
  window: { start: number; end: number };
  pieces: Piece[];
  timeline: Piece[];
  words: EditorWord[];
  cues: Array<{ id: string; start: number; end: number; text: string }>;
  sentences: Piece[];
  scenes: Array<{ start: number; end: number; x: number; y: number }>;
  focus: { x: number; y: number } | null;
  /** The clip's virtual camera as the server planned it (daemon/render/camera.ts), when there is one. */
  camera?: EditorCamera | null;
}

export interface EditorCamera {
  layout: "follow" | "split" | "whole";
  paths: Array<Array<{ t: number; x: number; y: number; cut?: boolean }>>;
  /** Per path, the most of the source's height its window spans (split: closer on each face). */
  zoom?: number[];
  source_aspect: number;
}

type Path = EditorCamera["paths"][number];

/** The camera's centre on a path at `t`: eased from key to key, held then jumped at a cut (as the render). */
function positionOn(path: Path, t: number): { x: number; y: number } {
  let i = 0;
  while (i + 1 < path.length && path[i + 1]!.t <= t) i++;
  const a = path[i]!;
  const b = path[i + 1];
  const u = !b || b.cut || t <= a.t ? 0 : Math.min(1, (t - a.t) / Math.max(1e-6, b.t - a.t));
  const e = u * u * (3 - 2 * u);
  return { x: b ? a.x + (b.x - a.x) * e : a.x, y: b ? a.y + (b.y - a.y) * e : a.y };
}

/**
 * The camera's window at clip time `t` as a CSS object-position (fractions of the free range), the
 * same arithmetic as the render's crop (daemon/render/camera.ts: eased keys, face 40 % from the top).
 * Null where the preview cannot show it as one window (split: splitWindows) or there is no path.
 */
export function cameraFocus(c: EditorCamera, t: number, shape: number): { x: number; y: number } | null {
  const path = c.layout === "follow" ? c.paths[0] : undefined;
  if (!path?.length) return null;
  const { x, y } = positionOn(path, t);
  const w = Math.min(1, shape / c.source_aspect);
  const h = Math.min(1, c.source_aspect / shape);
  const free = (lo: number, size: number) => (size >= 1 ? 0.5 : Math.max(0, Math.min(1, lo / (1 - size))));
  return { x: free(x - w / 2, w), y: free(y - 0.4 * h, h) };
}

export interface SplitHalf {
  /** The window on the source (fractions of its width and height). */
  src: { x: number; y: number; w: number; h: number };
  /** Where it is drawn in the frame (pixels of the W×H frame). */
  dst: { x: number; y: number; w: number; h: number };
}

const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));

/**
 * The split layout's two windows at `t` in a W×H frame, as the render draws them
 * (daemon/render/clip-layout.ts): stacked halves for upright and square shapes, side by side for
 * wide ones, the first a little smaller when the size is odd; each window its path's centre with
 * the face 40 % from the top and its zoom. Null for any other layout.
 */
export function splitWindows(c: EditorCamera, t: number, W: number, H: number): SplitHalf[] | null {
  if (c.layout !== "split" || c.paths.length !== 2 || !c.paths.every((p) => p.length)) return null;
  const stacked = W / H < 1.2;
  const w1 = stacked ? W : Math.round(W / 4) * 2;
  const h1 = stacked ? Math.round(H / 4) * 2 : H;
  const halves = [
    { x: 0, y: 0, w: w1, h: h1 },
    stacked ? { x: 0, y: h1, w: W, h: H - h1 } : { x: w1, y: 0, w: W - w1, h: H },
  ];
  return halves.map((dst, i) => {
    const centre = positionOn(c.paths[i]!, t);
    const shape = dst.w / dst.h;
    const h = Math.min(c.zoom?.[i] ?? 1, c.source_aspect / shape);
    const w = (h * shape) / c.source_aspect;
    return { src: { x: clamp(centre.x - w / 2, 0, 1 - w), y: clamp(centre.y - 0.4 * h, 0, 1 - h), w, h }, dst };
  });
}

/** The shortest clip the server renders (CLIP_SECONDS.min in daemon/account/clip-words.ts). */
export const MIN_CLIP_S = 2;

export const lengthOf = (pieces: Piece[]) => pieces.reduce((a, p) => a + p.end - p.start, 0);

/** The edge nearest `t` among `edges`. */
export function snap(edges: number[], t: number): number {
  let best = edges[0] ?? t;
  for (const e of edges) if (Math.abs(e - t) < Math.abs(best - t)) best = e;
  return best;
}

/** Where a start handle may land: word starts; an end handle: word ends (sentence edges are among them). */
export const startEdges = (words: EditorWord[]) => words.map((w) => w.start);
export const endEdges = (words: EditorWord[]) => words.map((w) => w.end);

/** The next or previous edge from `t` (keyboard steps), or `t` when there is none that way. */
export function step(edges: number[], t: number, dir: 1 | -1): number {
  const sorted = [...edges].sort((a, b) => a - b);
  return dir > 0 ? (sorted.find((e) => e > t + 0.001) ?? t) : ([...sorted].reverse().find((e) => e < t - 0.001) ?? t);
}

/** The pieces with the clip's start (or end) moved to `t`: pieces wholly outside go, the edge one is cut. */
export function trim(pieces: Piece[], side: "start" | "end", t: number): Piece[] {
  if (side === "start") {
    const kept = pieces.filter((p) => p.end > t + 0.05);
    if (!kept.length) return pieces;
    return [{ start: Math.min(t, kept[0]!.end - 0.1), end: kept[0]!.end }, ...kept.slice(1)];
  }
  const kept = pieces.filter((p) => p.start < t - 0.05);
  if (!kept.length) return pieces;
  return [...kept.slice(0, -1), { start: kept.at(-1)!.start, end: Math.max(t, kept.at(-1)!.start + 0.1) }];
}

/** The gaps between pieces (cut pauses), each restorable. */
export const gapsOf = (pieces: Piece[]): Piece[] =>
  pieces.slice(1).map((p, i) => ({ start: pieces[i]!.end, end: p.start }));

/** The pieces with gap `i` put back: the two pieces either side become one. */
export function restoreGap(pieces: Piece[], i: number): Piece[] {
  if (i < 0 || i + 1 >= pieces.length) return pieces;
  return [...pieces.slice(0, i), { start: pieces[i]!.start, end: pieces[i + 1]!.end }, ...pieces.slice(i + 2)];
}

/** A source time as clip time (null when it falls in no piece). */
export function clipTime(pieces: Piece[], t: number): number | null {
  let offset = 0;
  for (const p of pieces) {
    if (t >= p.start - 0.02 && t < p.end) return offset + Math.max(0, t - p.start);
    offset += p.end - p.start;
  }
  return null;
}

/** A clip time as source time. */
export function sourceTime(pieces: Piece[], t: number): number {
  let left = t;
  for (const p of pieces) {
    if (left <= p.end - p.start) return p.start + left;
    left -= p.end - p.start;
  }
  return pieces.at(-1)?.end ?? 0;
}

export const same = (a: Piece[], b: Piece[]) =>
  a.length === b.length &&
  a.every((p, i) => Math.abs(p.start - b[i]!.start) < 0.001 && Math.abs(p.end - b[i]!.end) < 0.001);
