/**
 * Where to crop a picture to the clip's shape (9:16 unless told another), scene by scene.
 *
 * One decode of each piece (at 320 pixels wide) does two jobs: ffmpeg's scene score
 * (`select='gt(scene,T)'` + `showinfo`) marks the hard cuts, and a few small frames per second are
 * kept in memory. Each scene then gets sharp's attention strategy (skin tones, saturation,
 * luminance frequency) on up to three of its frames; the median offset wins, so one odd frame
 * cannot swing the crop. A join between two pieces is a scene boundary too. Scenes under a second
 * join a neighbour, except at a piece's start or end: a clip that begins a few frames before a
 * camera cut shows another shot there, and the next scene's crop would frame an empty corner. Sampling from the same
 * decode (instead of one seek per sample) keeps the cost flat on long-GOP sources.
 */
import sharp from "sharp";
import type { Piece } from "./clip.js";
import { frameAt, type RawFrame, type Sampled, type SampleOptions, samplePiece } from "./sample.js";
import type { CropScene } from "../../daemon/render/clip-graph.js";

export type { CropScene };

export interface PlanOptions {
  signal?: AbortSignal;
  /** Scene score (0..1) above which a frame starts a new scene. Default 0.3. */
  threshold?: number;
  /** Scenes shorter than this (seconds) join their neighbour. Default 1. */
  minScene?: number;
  /** Offsets closer than this (0..1) are treated as the same crop, so the frame does not twitch. Default 0.05. */
  tolerance?: number;
  /** Width over height of the crop window. Default 9/16. */
  aspect?: number;
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;

/** sharp's attention crop of one frame to `aspect` (width/height), as fractions of the free range. */
async function _attention(f: RawFrame, aspect: number): Promise<{ x: number; y: number } | undefined> {
  const { width: w, height: h } = f;
  if (!w || !h) return undefined;
  // Wider than the shape crops the width; narrower crops the height.
  const cropW = Math.min(w, Math.round(h * aspect));
  const cropH = Math.min(h, Math.round(w / aspect));
  if (cropW >= w && cropH >= h) return { x: 0.5, y: 0.5 };
  const { info } = await sharp(f.rgb, { raw: { width: w, height: h, channels: 3 } })
    .resize(cropW, cropH, { fit: "cover", position: sharp.strategy.attention })
    .toBuffer({ resolveWithObject: true });
  const i = info as { cropOffsetLeft?: number; cropOffsetTop?: number };
  const frac = (off: number | undefined, free: number) =>
    free > 0 ? Math.max(0, Math.min(1, -(off ?? -free / 2) / free)) : 0.5;
  return { x: frac(i.cropOffsetLeft, w - cropW), y: frac(i.cropOffsetTop, h - cropH) };
}

/** The median of a non-empty list (callers check the length). */
const median = (v: number[]): number => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;

/** An edge scene shorter than this (two frames at 30 fps) is a detection wobble, not a shot: it joins. */
const MIN_EDGE_SCENE = 0.05;

/**
 * Splits [0, len) at the cuts, folding scenes shorter than `minScene` into a neighbour; a short
 * scene at either edge stays a scene of its own (its own crop), as the shot it is.
 */
export function splitScenes(cuts: number[], len: number, minScene: number): Array<[number, number]> {
  const edges = [0, ...cuts.filter((c) => c > 0 && c < len).sort((a, b) => a - b), len];
  const raw: Array<[number, number]> = edges.slice(1).map((b, i) => [edges[i]!, b]);
  const edge = (s: [number, number] | undefined) =>
    !!s && raw.length > 1 && s[1] - s[0] < minScene && s[1] - s[0] >= MIN_EDGE_SCENE;
  const head = edge(raw[0]) ? raw.shift() : undefined;
  const tail = edge(raw.at(-1)) ? raw.pop() : undefined;
  const out: Array<[number, number]> = [];
  for (const [a, b] of raw) {
    const last = out[out.length - 1];
    if (last && (b - a < minScene || last[1] - last[0] < minScene)) last[1] = b;
    else out.push([a, b]);
  }
  return [...(head ? [head] : []), ...out, ...(tail ? [tail] : [])];
}

/** The unmerged scenes of a clip on its joined timeline, each with its attention crop. */
export async function sceneCrops(
  source: string,
  pieces: Piece[],
  opts: PlanOptions & { sample?: (piece: number, offset: number) => SampleOptions } = {},
): Promise<CropScene[]> {
  const threshold = opts.threshold ?? 0.3;
  const minScene = opts.minScene ?? 1;
  const plan: CropScene[] = [];
  let offset = 0;
  for (const [i, p] of pieces.entries()) {
    const len = p.end - p.start;
    let sampled: Sampled = { cuts: [], frames: [] };
    try {
      sampled = await samplePiece(source, p, threshold, opts.signal, opts.sample?.(i, offset));
    } catch (err) {
      if (opts.signal?.aborted) throw err;
    }
    for (const [a, b] of splitScenes(sampled.cuts, len, minScene)) {
      // Frames right at a cut may still be the old shot (the sample clock is approximate).
      let inside = sampled.frames.filter((f) => f.t >= a + 0.15 && f.t < b - 0.1);
      if (!inside.length) inside = sampled.frames.filter((f) => f.t >= a && f.t < b);
      if (!inside.length && sampled.frames.length) {
        // A short edge scene between two samples: one frame of its own, from its middle.
        const f = await frameAt(source, p.start + (a + b) / 2, opts.signal).catch((err: unknown) => {
          if (opts.signal?.aborted) throw err;
          return undefined;
        });
        if (f) inside = [f];
      }
      const pick = inside.length <= 3 ? inside : [0.2, 0.5, 0.8].map((q) => inside[Math.floor(q * inside.length)]!);
      const found: Array<{ x: number; y: number }> = [];
      for (const f of pick) {
        try {
          const r = await _attention(f, opts.aspect ?? 9 / 16);
          if (r) found.push(r);
        } catch {
          // An undecodable sample only costs this scene a vote.
        }
      }
      const x = found.length ? median(found.map((f) => f.x)) : 0.5;
      const y = found.length ? median(found.map((f) => f.y)) : 0.5;
      plan.push({ start: r3(offset + a), end: r3(offset + b), x: r3(x), y: r3(y) });
    }
    offset += len;
  }
  return plan.length ? plan : [{ start: 0, end: r3(offset), x: 0.5, y: 0.5 }];
}

/**
 * The crop plan of a clip on its own (joined) timeline: one entry per scene, neighbours with the
 * same crop merged. A scene where attention finds nothing keeps the centre.
 */
export async function cropPlan(source: string, pieces: Piece[], opts: PlanOptions = {}): Promise<CropScene[]> {
  return mergeScenes(await sceneCrops(source, pieces, opts), opts.tolerance ?? 0.05);
}

/** Neighbours whose crops barely differ merged: a steady frame reads better than a twitchy one. */
export function mergeScenes(plan: CropScene[], tolerance: number): CropScene[] {
  const merged: CropScene[] = [];
  for (const s of plan) {
    const last = merged[merged.length - 1];
    if (last && Math.abs(last.x - s.x) < tolerance && Math.abs(last.y - s.y) < tolerance) last.end = s.end;
    else merged.push({ ...s });
  }
  return merged;
}

/** One crop centre for the whole clip (the longest scene's), 0.5 when it cannot tell. */
export async function attentionFocus(source: string, pieces: Piece[], opts: PlanOptions = {}): Promise<number> {
  const plan = await cropPlan(source, pieces, opts);
  return plan.reduce((a, s) => (s.end - s.start > a.end - a.start ? s : a)).x;
}
