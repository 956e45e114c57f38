/**
 * ffmpeg arguments for rendering a clip from its source. Each piece is its own input, seeked with
 * `-ss` before `-i`: when transcoding ffmpeg decodes from the keyframe before and drops frames up to
 * the exact time, so cuts are frame-accurate without decoding the recording from its start.
 * `trim`/`atrim` then pin each piece to its exact length and `concat` joins them; the layout to the
 * clip's shape is applied once after, and, when `burn` is given, the captions on top of it, then the
 * brand (logo, intro/outro cards): one decode and one encode for a finished clip (cut's plan +
 * caption-burn), or a caption-free cut without it.
 * Shared by cut (which may encode a plain cut) and caption-burn (which renders a plan).
 * The layout filter lives in clip-layout.ts and the parts both graphs share in graph-parts.ts.
 */
import type { Piece } from "./timeline.js";
import { SAFE_INPUT } from "./render.js";
import { bleepFilter, type Span } from "./censor.js";
import { brandTail, cardTimes, type BrandFiles, type PlanBrand } from "./brand-graph.js";
import { audioLayout, waveFilter } from "./audio-template.js";
import type { AudioMeasure, LoudnessTarget } from "./loudness.js";
import { type CropScene, type Fit, type GraphOptions, layoutFilter } from "./clip-layout.js";
import type { CameraPlan } from "./camera.js";
import { audioChain, finalArgs, finishAudio, n3, pieceInputs } from "./graph-parts.js";

export { type CropScene, type Fit, type GraphOptions, layoutFilter, sceneExpr } from "./clip-layout.js";

/** Arguments for a video source: pieces → concat → layout → encode. */
export function videoCutArgs(
  source: string,
  pieces: Piece[],
  o: GraphOptions & { hasAudio: boolean; output: string },
): string[] {
  const total = pieces.reduce((a, p) => a + (p.end - p.start), 0);
  const parts: string[] = [];
  pieces.forEach((p, i) => {
    parts.push(
      `[${i}:v:0]trim=duration=${n3(p.end - p.start)},setpts=PTS-STARTPTS,fps=${o.fps},format=yuv420p,setsar=1[v${i}]`,
    );
    if (o.hasAudio) parts.push(audioChain(i, p));
  });
  const labels = pieces.map((_, i) => (o.hasAudio ? `[v${i}][a${i}]` : `[v${i}]`)).join("");
  parts.push(`${labels}concat=n=${pieces.length}:v=1:a=${o.hasAudio ? 1 : 0}[vj]${o.hasAudio ? "[aj]" : ""}`);
  const bleep = o.hasAudio && !!o.bleep?.length;
  if (bleep) parts.push(bleepFilter(o.bleep!, "aj", "ajb"));
  parts.push(o.burn ? `${layoutFilter(o, "vj", "vl")};[vl]${o.burn}[vb]` : layoutFilter(o, "vj", "vb"));
  // A source without sound gets silence, so every clip has an audio track.
  if (!o.hasAudio) parts.push(`anullsrc=r=48000:cl=stereo,atrim=duration=${n3(total)}[asil]`);
  const inputs = pieceInputs(source, pieces);
  const logoInput = o.brandFiles?.logo
    ? (inputs.push(...SAFE_INPUT, "-i", o.brandFiles.logo), pieces.length)
    : undefined;
  const out = brandTail(parts, {
    v: "vb",
    a: o.hasAudio ? finishAudio(parts, bleep ? "ajb" : "aj", o) : "asil",
    width: o.width,
    height: o.height,
    fps: o.fps,
    brand: o.brand,
    files: o.brandFiles,
    logoInput,
  });
  return finalArgs(inputs, parts, out, total, o);
}

/** The waveform's overlay held off until `from` seconds (a timeline option: the wave stream still flows). */
const waveEnable = (from?: number) => (from && from > 0 ? `:enable='gte(t,${from.toFixed(3)})'` : "");

/** Arguments for an audio source: a still background (audio-template.ts), a live waveform, the joined audio. */
export function audioCutArgs(
  source: string,
  pieces: Piece[],
  o: {
    width: number;
    height: number;
    fps: number;
    background: string;
    waveColour: string;
    output: string;
    preset?: string;
    burn?: string;
    bleep?: Span[];
    brand?: PlanBrand;
    brandFiles?: BrandFiles;
    audioMeasure?: AudioMeasure;
    loudness?: LoudnessTarget;
    /** Seconds into the clip when the waveform starts (an audio hook box holds its band until then). */
    waveFrom?: number;
  },
): string[] {
  const total = pieces.reduce((a, p) => a + (p.end - p.start), 0);
  const { width: W, height: H } = o;
  const wave = audioLayout(W, H, o.brand?.logo).wave;
  const bgIndex = pieces.length;
  const parts = pieces.map((p, i) => audioChain(i, p));
  const joined = `${pieces.map((_, i) => `[a${i}]`).join("")}concat=n=${pieces.length}:v=0:a=1`;
  // A bleep goes in before the split, so the waveform shows the tone the clip plays.
  parts.push(
    o.bleep?.length
      ? `${joined}[ac];${bleepFilter(o.bleep, "ac", "acb")};[acb]asplit=2[aout][aw]`
      : `${joined},asplit=2[aout][aw]`,
  );
  parts.push(waveFilter("aw", "wave", wave, { colour: o.waveColour, fps: o.fps }));
  // The still is decoded once and repeated by the loop filter (decoding a PNG per frame is slow).
  parts.push(
    `[${bgIndex}:v]scale=${W}:${H},setsar=1,format=yuv420p,loop=loop=-1:size=1:start=0,setpts=N/(${o.fps}*TB)[bg]`,
  );
  parts.push(
    `[bg][wave]overlay=${wave.x}+(${wave.w}-w)/2:${wave.y}:shortest=1${waveEnable(o.waveFrom)},format=yuv420p` +
      `${o.burn ? `,${o.burn}` : ""}[vb]`,
  );
  const inputs = [...pieceInputs(source, pieces), "-i", o.background];
  const logoInput = o.brandFiles?.logo ? (inputs.push(...SAFE_INPUT, "-i", o.brandFiles.logo), bgIndex + 1) : undefined;
  const out = brandTail(parts, {
    v: "vb",
    a: finishAudio(parts, "aout", o),
    width: W,
    height: H,
    fps: o.fps,
    brand: o.brand,
    files: o.brandFiles,
    logoInput,
  });
  return finalArgs(inputs, parts, out, total, o);
}

/**
 * What cut hands on instead of a file when it is told not to encode: everything the clip's one
 * render needs, by storage key, so caption-burn (and a restyle long after) can render it from the
 * source. Stored in run state and in the clip's record: plain JSON.
 */
export interface RenderPlan {
  source_key: string;
  pieces: Piece[];
  width: number;
  height: number;
  fps: number;
  /** "audio": a still background (`background_key`) with a waveform over the joined audio. */
  layout: Fit | "audio";
  /** Pad colour for "pad". */
  colour: string;
  has_audio: boolean;
  focus?: { x: number; y: number };
  crop_plan?: CropScene[];
  /** The virtual camera (camera.ts): faces, speakers and layout; wins over `crop_plan` when given. */
  camera?: CameraPlan;
  background_key?: string;
  /** The brand kit's logo, cards and colours (a snapshot: a later edit of the kit does not change this clip). */
  brand?: PlanBrand;
}

/** The finished clip's length: its pieces, and the brand's cards around them. */
export function planDuration(plan: Pick<RenderPlan, "pieces" | "brand">): number {
  const cards = cardTimes(plan.brand);
  return +(plan.pieces.reduce((a, p) => a + (p.end - p.start), 0) + cards.before + cards.after).toFixed(3);
}

/** The one-pass arguments of a plan, with its files already on local disk. */
export function planArgs(
  plan: RenderPlan,
  files: { source: string; background?: string; brand?: BrandFiles },
  o: {
    output: string;
    preset?: string;
    burn?: string;
    bleep?: Span[];
    audioMeasure?: AudioMeasure;
    loudness?: LoudnessTarget;
    waveFrom?: number;
  },
): string[] {
  const { width, height, fps } = plan;
  const brand = { brand: plan.brand, brandFiles: files.brand };
  if (plan.layout === "audio") {
    if (!files.background) throw new Error("an audio plan needs its background still");
    const accent = plan.brand?.colours?.accent;
    return audioCutArgs(files.source, plan.pieces, {
      width,
      height,
      fps,
      background: files.background,
      waveColour: accent && /^#[0-9a-fA-F]{6}$/.test(accent) ? accent : "#ffffff",
      ...brand,
      ...o,
    });
  }
  return videoCutArgs(files.source, plan.pieces, {
    width,
    height,
    fps,
    fit: plan.layout,
    background: plan.colour,
    hasAudio: plan.has_audio,
    focus: plan.focus,
    plan: plan.crop_plan,
    camera: plan.camera,
    ...brand,
    ...o,
  });
}
