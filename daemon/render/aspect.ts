/**
 * The shapes a clip can be rendered in. A shape is named by its aspect ratio; its size comes from
 * one number, the frame's short side (cut's `width` option, kept under that name because for the
 * default 9:16 the short side is the width): 1080 gives 1080×1920, 1080×1080, 1080×1350 and
 * 1920×1080. Sides are rounded to even numbers, which H.264 in 4:2:0 needs.
 */

export const ASPECT_RATIOS = ["9:16", "1:1", "4:5", "16:9"] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];
export const DEFAULT_ASPECT: AspectRatio = "9:16";

const even = (v: number) => Math.round(v / 2) * 2;

/** Width over height of a shape. */
export function aspectValue(aspect: AspectRatio): number {
  const [w, h] = aspect.split(":").map(Number) as [number, number];
  return w / h;
}

/** The frame size of a shape whose short side is `short` pixels. */
export function frameSize(aspect: AspectRatio, short: number): { width: number; height: number } {
  const r = aspectValue(aspect);
  return r >= 1 ? { width: even(short * r), height: even(short) } : { width: even(short), height: even(short / r) };
}

export const isAspect = (v: unknown): v is AspectRatio =>
  typeof v === "string" && (ASPECT_RATIOS as readonly string[]).includes(v);
