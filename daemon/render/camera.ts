/**
 * The virtual camera of a clip (issue 37): where it looks over the clip's joined timeline, made once
 * by the crop planning (plugins/cut/camera-plan.ts) and read by the render, the poster and the
 * editor's preview. Positions are the subject's centre in fractions of the source picture, not crop
 * offsets, so one plan serves every shape: each shape puts its own window around the same point
 * (cropRect), with the face a little above the window's middle for headroom.
 *
 * A path is a list of keys: from one key to the next the camera eases (smoothstep), unless the next
 * key is a `cut`, where it holds and then jumps (a scene cut or a change of speaker).
 */

export const LAYOUTS = ["auto", "follow", "split", "whole"] as const;
export type LayoutChoice = (typeof LAYOUTS)[number];
export type Layout = Exclude<LayoutChoice, "auto">;

/** Where the face centre sits in the window, from its top: room above the head, the chin well inside. */
export const HEADROOM = 0.4;

export interface CameraKey {
  /** Seconds on the clip's joined timeline. */
  t: number;
  x: number;
  y: number;
  /** Jump here (hold the previous key until now) instead of easing from it. */
  cut?: boolean;
}

/** One person found in the clip: where they usually are and how long they are seen and heard. */
export interface CameraPerson {
  id: number;
  x: number;
  y: number;
  /** Face box size, fractions of the source width and height. */
  w: number;
  h: number;
  seen: number;
  speaks: number;
}

export interface CameraScene {
  start: number;
  end: number;
  persons: number[];
  /** Who talks when (null: nobody could be told). */
  turns: Array<{ start: number; end: number; person: number | null }>;
}

export interface CameraPlan {
  version: 1;
  /** What was asked and what it resolved to. */
  asked: LayoutChoice;
  layout: Layout;
  /** follow: one path; split: two (top or left first); whole: none. */
  paths: CameraKey[][];
  /**
   * Per path, the most of the source's height its window spans (split: closer on each face, so a
   * half shows its person, not the other one's edge); absent or 1: as tall as the picture allows.
   */
  zoom?: number[];
  persons: CameraPerson[];
  scenes: CameraScene[];
  /** Width over height of the source picture, for a window's size outside ffmpeg. */
  source_aspect: number;
}

const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));
const smooth = (u: number) => u * u * (3 - 2 * u);

/** The camera's centre on a path at time `t`. */
export function positionAt(path: CameraKey[], t: number): { x: number; y: number } {
  if (!path.length) return { x: 0.5, y: 0.5 };
  let i = 0;
  while (i + 1 < path.length && path[i + 1]!.t <= t) i++;
  const a = path[i]!;
  const b = path[i + 1];
  if (!b || b.cut || t <= a.t) return { x: a.x, y: a.y };
  const u = smooth(clamp((t - a.t) / Math.max(1e-6, b.t - a.t), 0, 1));
  return { x: a.x + (b.x - a.x) * u, y: a.y + (b.y - a.y) * u };
}

/** The split layout's halves: stacked for upright and square shapes, side by side for wide ones. */
export const splitStacked = (shapeAspect: number): boolean => shapeAspect < 1.2;

/** The window (fractions of the source) a shape of `shapeAspect` puts around `centre`. */
export function cropRect(
  centre: { x: number; y: number },
  shapeAspect: number,
  sourceAspect: number,
  zoom = 1,
): { x: number; y: number; w: number; h: number } {
  const h = Math.min(zoom, sourceAspect / shapeAspect);
  const w = (h * shapeAspect) / sourceAspect;
  return { x: clamp(centre.x - w / 2, 0, 1 - w), y: clamp(centre.y - HEADROOM * h, 0, 1 - h), w, h };
}

/** The window(s) of a plan at time `t` for a shape: one for follow, two for split, the whole picture else. */
export function windowsAt(plan: CameraPlan, t: number, shapeAspect: number) {
  if (plan.layout === "whole" || !plan.paths.length) return [{ x: 0, y: 0, w: 1, h: 1 }];
  if (plan.layout === "follow") return [cropRect(positionAt(plan.paths[0]!, t), shapeAspect, plan.source_aspect)];
  const half = splitStacked(shapeAspect) ? shapeAspect * 2 : shapeAspect / 2;
  return plan.paths.map((p, i) => cropRect(positionAt(p, t), half, plan.source_aspect, plan.zoom?.[i]));
}

const f4 = (v: number) => v.toFixed(4);

/** One axis of a path as an ffmpeg expression of the output time `t` (nested ifs, eased segments). */
export function pathExpr(path: CameraKey[], axis: "x" | "y", fps: number): string {
  if (!path.length) return "0.5";
  const v = (k: CameraKey) => f4(k[axis]);
  let expr = v(path[path.length - 1]!);
  for (let i = path.length - 2; i >= 0; i--) {
    const a = path[i]!;
    const b = path[i + 1]!;
    let seg: string;
    let until = b.t;
    if (b.cut || Math.abs(b[axis] - a[axis]) < 1e-4) {
      seg = v(a);
      // A jump lands half a frame early, so the first frame after it (a rounding hair below) has it.
      if (b.cut) until = b.t - 0.5 / fps;
    } else {
      const u = `clip((t-${f4(a.t)})/${f4(Math.max(1e-3, b.t - a.t))},0,1)`;
      seg = `(${v(a)}+${f4(b[axis] - a[axis])}*${u}*${u}*(3-2*${u}))`;
    }
    expr = `if(lt(t,${f4(until)}),${seg},${expr})`;
  }
  return expr;
}

/** An ffmpeg crop of `[in]` to `ow/oh` = `aspect` around a path, headroom kept; quotes guard the commas. */
export function pathCrop(path: CameraKey[], aspect: number, fps: number, zoom = 1): string {
  const a = aspect.toFixed(6);
  const h = `min(ih*${zoom.toFixed(4)},iw/${a})`;
  return (
    `crop=w='${h}*${a}':h='${h}':` +
    `x='clip(iw*(${pathExpr(path, "x", fps)})-ow/2,0,iw-ow)':` +
    `y='clip(ih*(${pathExpr(path, "y", fps)})-oh*${HEADROOM},0,ih-oh)'`
  );
}

/** The plan as it stands at `t`, held still from there (a poster's two frames start at `t`). */
export function cameraAt(plan: CameraPlan, t: number): CameraPlan {
  const hold = (p: CameraKey[]) => [{ t: 0, ...positionAt(p, t) }];
  return { ...plan, paths: plan.paths.map(hold) };
}

const isZoom = (z: unknown) => typeof z === "number" && z >= 0.1 && z <= 1;

// biome-ignore lint/suspicious/noExplicitAny: stored JSON; every field read is checked
const isKey = (k: any) => k && [k.t, k.x, k.y].every((v) => typeof v === "number" && Number.isFinite(v));

/** A stored plan, checked before it reaches an ffmpeg expression; undefined when it is not one. */
export function readCameraPlan(v: unknown): CameraPlan | undefined {
  // biome-ignore lint/suspicious/noExplicitAny: stored JSON; every field read is checked
  const p = v as any;
  if (!p || typeof p !== "object" || p.version !== 1) return undefined;
  if (!["follow", "split", "whole"].includes(p.layout) || !Array.isArray(p.paths) || p.paths.length > 2)
    return undefined;
  if (!(typeof p.source_aspect === "number" && p.source_aspect > 0)) return undefined;
  if (p.layout !== "whole" && p.paths.length !== (p.layout === "split" ? 2 : 1)) return undefined;
  for (const path of p.paths) {
    if (!Array.isArray(path) || !path.length || path.length > 2000 || !path.every(isKey)) return undefined;
  }
  return {
    version: 1,
    asked: LAYOUTS.includes(p.asked) ? p.asked : "auto",
    layout: p.layout,
    // biome-ignore lint/suspicious/noExplicitAny: checked by isKey above
    paths: p.paths.map((path: any[]) =>
      path.map((k) => ({ t: k.t, x: clamp(k.x, 0, 1), y: clamp(k.y, 0, 1), ...(k.cut ? { cut: true } : {}) })),
    ),
    ...(Array.isArray(p.zoom) && p.zoom.length === p.paths.length && p.zoom.every(isZoom) ? { zoom: p.zoom } : {}),
    persons: Array.isArray(p.persons) ? p.persons : [],
    scenes: Array.isArray(p.scenes) ? p.scenes : [],
    source_aspect: p.source_aspect,
  };
}
