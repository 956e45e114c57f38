/**
 * How a clip's picture is laid out to its shape: the fill (a crop that follows the scenes) or the
 * whole picture on a blur or a colour. Apart from clip-graph.ts because the shape of the picture
 * is its own concern, independent of the pieces, the sound and the encode.
 */
import type { Span } from "./censor.js";
import type { BrandFiles, PlanBrand } from "./brand-graph.js";
import type { AudioMeasure, LoudnessTarget } from "./loudness.js";
import { type CameraPlan, pathCrop, splitStacked } from "./camera.js";

export type Fit = "crop" | "blur" | "pad";

/** One stretch of the joined clip with its crop centre (0..1 of the free range on each axis). */
export interface CropScene {
  start: number;
  end: number;
  x: number;
  y: number;
}

export interface GraphOptions {
  width: number;
  height: number;
  fps: number;
  fit: Fit;
  /** Pad colour (ffmpeg colour syntax, e.g. "#101820" or "black"). */
  background: string;
  /** Horizontal/vertical centre of the crop, 0..1 of the free range (0.5 = centred). */
  focus?: { x: number; y: number };
  /** Per-scene crop centres on the joined timeline; wins over `focus` when given. */
  plan?: CropScene[];
  /** The virtual camera (camera.ts); with `fit: crop` it wins over `plan` and `focus`. */
  camera?: CameraPlan;
  /** x264 preset. Default: the shipped DEFAULT_PRESET (daemon/render/render.ts). */
  preset?: string;
  /** A subtitle filter (`ass=filename=…`) drawn over the laid-out picture; none for a plain cut. */
  burn?: string;
  /** Stretches of the joined clip muted under a 1 kHz tone (captions' `censor: bleep`; censor.ts). */
  bleep?: Span[];
  /** A logo and intro/outro cards (brand-graph.ts), with their files on local disk. */
  brand?: PlanBrand;
  brandFiles?: BrandFiles;
  /** The clip's audio as measured by loudness.ts's first pass; without it the sound is left as it is. */
  audioMeasure?: AudioMeasure;
  /** Integrated loudness and true-peak ceiling, or "off" (default −14 LUFS, −1 dBTP). */
  loudness?: LoudnessTarget;
}

/**
 * A crop offset that changes at scene boundaries: nested `if(lt(t,T),…)` on the output time.
 * Each boundary is moved half a frame early, so the first frame of a scene (whose timestamp may be
 * a rounding hair below the boundary) already gets the new crop.
 */
export function sceneExpr(plan: CropScene[], axis: "x" | "y", fps: number): string {
  const v = (s: CropScene) => s[axis].toFixed(3);
  let expr = v(plan[plan.length - 1]!); // callers pass a non-empty plan
  for (let i = plan.length - 2; i >= 0; i--) {
    const scene = plan[i]!;
    expr = `if(lt(t,${(scene.end - 0.5 / fps).toFixed(4)}),${v(scene)},${expr})`;
  }
  return expr;
}

/**
 * The layout of one video stream `[in]` into `[out]`: the frame's shape filled (per-scene crop) or the whole picture on
 * a blur or a colour.
 */
export function layoutFilter(o: GraphOptions, inLabel: string, outLabel: string): string {
  const { width: W, height: H } = o;
  if (o.fit === "crop" && o.camera) {
    if (o.camera.layout === "whole") return layoutFilter({ ...o, fit: "blur", camera: undefined }, inLabel, outLabel);
    if (o.camera.layout === "split" && o.camera.paths.length === 2) return splitFilter(o, o.camera, inLabel, outLabel);
    if (o.camera.paths[0])
      return `[${inLabel}]${pathCrop(o.camera.paths[0], W / H, o.fps)},scale=${W}:${H},setsar=1[${outLabel}]`;
  }
  const plan = o.plan?.length ? o.plan : [{ start: 0, end: 0, x: o.focus?.x ?? 0.5, y: o.focus?.y ?? 0.5 }];
  switch (o.fit) {
    case "crop":
      // Crop at the source size, then scale: scaling 1080p up to 3413×1920 first costs more than the encode.
      // crop evaluates x and y on every frame; the quotes keep the commas away from the graph parser.
      return (
        `[${inLabel}]crop=w='min(iw,ih*${W}/${H})':h='min(ih,iw*${H}/${W})':` +
        `x='(iw-ow)*${sceneExpr(plan, "x", o.fps)}':y='(ih-oh)*${sceneExpr(plan, "y", o.fps)}',` +
        `scale=${W}:${H},setsar=1[${outLabel}]`
      );
    case "pad":
      return [
        `[${inLabel}]scale=${W}:${H}:force_original_aspect_ratio=decrease`,
        `pad=${W}:${H}:(ow-iw)/2:(oh-ih)/2:color=${o.background}`,
        `setsar=1[${outLabel}]`,
      ].join(",");
    case "blur": {
      // The blurred fill is made at a quarter size: cheaper, and the blur hides the upscale.
      const w4 = Math.round(W / 8) * 2;
      const h4 = Math.round(H / 8) * 2;
      return (
        `[${inLabel}]split=2[bgsrc][fgsrc];` +
        `[bgsrc]scale=${w4}:${h4}:force_original_aspect_ratio=increase,crop=${w4}:${h4},` +
        `boxblur=12:2,eq=brightness=-0.08,scale=${W}:${H},setsar=1[bg];` +
        `[fgsrc]scale=${W}:${H}:force_original_aspect_ratio=decrease,setsar=1[fg];` +
        `[bg][fg]overlay=(W-w)/2:(H-h)/2,setsar=1[${outLabel}]`
      );
    }
  }
}

/** Two windows, one per person, stacked (upright and square shapes) or side by side (wide ones). */
function splitFilter(o: GraphOptions, camera: CameraPlan, inLabel: string, outLabel: string): string {
  const stacked = splitStacked(o.width / o.height);
  // Even sides for 4:2:0; the second half takes what is left so the two always fill the frame.
  const w1 = stacked ? o.width : Math.round(o.width / 4) * 2;
  const h1 = stacked ? Math.round(o.height / 4) * 2 : o.height;
  const w2 = stacked ? o.width : o.width - w1;
  const h2 = stacked ? o.height - h1 : o.height;
  const [a, b] = camera.paths as [CameraPlan["paths"][0], CameraPlan["paths"][0]];
  return (
    `[${inLabel}]split=2[${outLabel}s1][${outLabel}s2];` +
    `[${outLabel}s1]${pathCrop(a, w1 / h1, o.fps, camera.zoom?.[0])},scale=${w1}:${h1},setsar=1[${outLabel}h1];` +
    `[${outLabel}s2]${pathCrop(b, w2 / h2, o.fps, camera.zoom?.[1])},scale=${w2}:${h2},setsar=1[${outLabel}h2];` +
    `[${outLabel}h1][${outLabel}h2]${stacked ? "vstack" : "hstack"}=inputs=2,setsar=1[${outLabel}]`
  );
}
