/**
 * Crop plans made ahead of the render. The `plan-crops` step of the episode pipelines analyses the
 * scenes of the top clips while the episode is being finished, and keeps each plan on its clip
 * (`crop_plan`), so that a render of one of them starts encoding at once instead of first decoding
 * the clip's pieces again at low resolution (bench/render: 4–5 s of a 60 s clip's render).
 *
 * A plan is only good for what it was made from: the same pieces, scene threshold and frame shape.
 * Anything else (a clip trimmed by an edit, another threshold or shape) is analysed again by `cut`,
 * and so is a plan of an older analysis (`analysis` below PLAN_ANALYSIS).
 */
import type { CropScene } from "../../daemon/render/clip-graph.js";
import { type CameraPlan, type LayoutChoice, readCameraPlan } from "../../daemon/render/camera.js";
import type { Piece } from "./clip.js";

/**
 * The analysis a plan comes from: 2 keeps short scenes at a piece's edges (focus.ts splitScenes);
 * 3 adds the camera (faces, speakers, layout: reframe.ts).
 */
export const PLAN_ANALYSIS = 3;

export interface PlannedCrop {
  /** PLAN_ANALYSIS when made; older plans lack it. */
  analysis?: number;
  /** The clip's aspect ratio ("9:16", …): the crop window's shape. */
  frame: string;
  threshold: number;
  /** The pieces it was made from, as a string (piecesSignature). */
  pieces: string;
  scenes: CropScene[];
  /** The layout asked for and the camera made for it (none when the face analysis could not run). */
  layout?: LayoutChoice;
  camera?: CameraPlan;
}

export const piecesSignature = (pieces: Piece[]): string =>
  pieces.map((p) => `${p.start.toFixed(3)}-${p.end.toFixed(3)}`).join(",");

// biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
const isScene = (s: any): s is CropScene =>
  s &&
  [s.start, s.end, s.x, s.y].every((v) => typeof v === "number" && Number.isFinite(v)) &&
  s.end > s.start &&
  s.x >= 0 &&
  s.x <= 1 &&
  s.y >= 0 &&
  s.y <= 1;

/** The plan's camera, when it has one made for `layout` (a plan without one still serves its scenes). */
export function plannedCamera(plan: unknown, layout: LayoutChoice): CameraPlan | undefined {
  const p = plan as Partial<PlannedCrop> | undefined;
  return p && typeof p === "object" && (p.layout ?? "auto") === layout ? readCameraPlan(p.camera) : undefined;
}

/** The plan's scenes when it was made for exactly these pieces, threshold, frame and layout; else undefined. */
export function plannedScenes(
  plan: unknown,
  want: { frame: string; threshold: number; pieces: Piece[]; layout?: LayoutChoice },
): CropScene[] | undefined {
  const p = plan as Partial<PlannedCrop> | undefined;
  if (!p || typeof p !== "object" || !Array.isArray(p.scenes) || !p.scenes.length || p.scenes.length > 10_000)
    return undefined;
  if (p.analysis !== PLAN_ANALYSIS) return undefined;
  if (p.frame !== want.frame || p.threshold !== want.threshold || p.pieces !== piecesSignature(want.pieces))
    return undefined;
  if ((p.layout ?? "auto") !== (want.layout ?? "auto")) return undefined;
  return p.scenes.every(isScene) ? p.scenes.map((s) => ({ start: s.start, end: s.end, x: s.x, y: s.y })) : undefined;
}
