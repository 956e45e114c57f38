/**
 * ffmpeg arguments for rendering a clip from its source. Each piece is its own input, seeked with
 * `-ss` before `-i`: when transcoding ffmpeg decodes from the keyframe before and drops frames up to
 * the exact time, so cuts are frame-accurate without decoding the recording from its start.
 * `trim`/`atrim` then pin each piece to its exact length and `concat` joins them; the layout to the
 * clip's shape is applied once after, and, when `burn` is given, the captions on top of it, then the
 * brand (logo, intro/outro cards): one decode and one encode for a finished clip (cut's plan +
 * caption-burn), or a caption-free cut without it.
 * Shared by cut (which may encode a plain cut) and caption-burn (which renders a plan).
 */
import type { Piece } from "./timeline.js";
import { DEFAULT_PRESET, SAFE_INPUT, finalEncodeArgs } from "./render.js";
import { bleepFilter, type Span } from "./censor.js";
import { brandTail, cardTimes, type BrandFiles, type PlanBrand } from "./brand-graph.js";
import { audioLayout, waveFilter } from "./audio-template.js";
import { type AudioMeasure, DEFAULT_LOUDNESS, finishAudioFilter, type LoudnessTarget } from "./loudness.js";

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

const n3 = (v: number) => v.toFixed(3);

function _pieceInputs(source: string, pieces: Piece[]): string[] {
  return pieces.flatMap((p) => [...SAFE_INPUT, "-ss", n3(p.start), "-t", n3(p.end - p.start + 0.1), "-i", source]);
}

function _audioChain(i: number, p: Piece): string {
  return [
    `[${i}:a:0]atrim=duration=${n3(p.end - p.start)}`,
    "asetpts=PTS-STARTPTS",
    "aresample=48000",
    `aformat=sample_fmts=fltp:channel_layouts=stereo[a${i}]`,
  ].join(",");
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
    if (o.hasAudio) parts.push(_audioChain(i, p));
  });
  const labels = pieces.map((_, i) => (o.hasAudio ? `[v${i}][a${i}]` : `[v${i}]`)).join("");
  parts.push(`${labels}concat=n=${pieces.length}:v=1:a=${o.hasAudio ? 1 : 0}[vj]${o.hasAudio ? "[aj]" : ""}`);
  const bleep = o.hasAudio && !!o.bleep?.length;
  if (bleep) parts.push(bleepFilter(o.bleep!, "aj", "ajb"));
  parts.push(o.burn ? `${layoutFilter(o, "vj", "vl")};[vl]${o.burn}[vb]` : layoutFilter(o, "vj", "vb"));
  // A source without sound gets silence, so every clip has an audio track.
  if (!o.hasAudio) parts.push(`anullsrc=r=48000:cl=stereo,atrim=duration=${n3(total)}[asil]`);
  const inputs = _pieceInputs(source, pieces);
  const logoInput = o.brandFiles?.logo
    ? (inputs.push(...SAFE_INPUT, "-i", o.brandFiles.logo), pieces.length)
    : undefined;
  const out = brandTail(parts, {
    v: "vb",
    a: o.hasAudio ? _finishAudio(parts, bleep ? "ajb" : "aj", o) : "asil",
    width: o.width,
    height: o.height,
    fps: o.fps,
    brand: o.brand,
    files: o.brandFiles,
    logoInput,
  });
  return _finalArgs(inputs, parts, out, total, o);
}

/**
 * The clip's own sound finished (the fold of split stereo, the loudness), before the brand's cards
 * are joined: their room tone keeps its own quiet level whatever gain the speech needed.
 */
function _finishAudio(
  parts: string[],
  label: string,
  o: { audioMeasure?: AudioMeasure; loudness?: LoudnessTarget },
): string {
  const finish = finishAudioFilter(o.audioMeasure, o.loudness ?? DEFAULT_LOUDNESS);
  if (!finish) return label;
  parts.push(`[${label}]${finish}[${label}f]`);
  return `${label}f`;
}

/** The command line's tail shared by both graphs: the graph, its two outputs, length with cards, encode. */
function _finalArgs(
  inputs: string[],
  parts: string[],
  out: { v: string; a: string },
  total: number,
  o: {
    brand?: PlanBrand;
    preset?: string;
    fps: number;
    output: string;
    width: number;
    height: number;
  },
): string[] {
  const cards = cardTimes(o.brand);
  // The file is tagged BT.709 (render.ts), so its pixels must be BT.709: frames that came in tagged
  // so pass through; untagged ones (cards, drawn stills, ffmpeg-made sources) were made with
  // BT.601's matrix and are converted here, once, at the end of the graph.
  const tagged = [...parts, `[${out.v}]scale=out_color_matrix=bt709:out_range=tv,format=yuv420p[v709]`];
  return [
    ...inputs,
    "-filter_complex",
    tagged.join(";"),
    "-map",
    "[v709]",
    "-map",
    `[${out.a}]`,
    "-t",
    n3(total + cards.before + cards.after),
    ...finalEncodeArgs({ preset: o.preset ?? DEFAULT_PRESET, width: o.width, height: o.height }),
    "-r",
    String(o.fps),
    o.output,
  ];
}

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
  },
): string[] {
  const total = pieces.reduce((a, p) => a + (p.end - p.start), 0);
  const { width: W, height: H } = o;
  const wave = audioLayout(W, H).wave;
  const bgIndex = pieces.length;
  const parts = pieces.map((p, i) => _audioChain(i, p));
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
    `[bg][wave]overlay=${wave.x}+(${wave.w}-w)/2:${wave.y}:shortest=1,format=yuv420p${o.burn ? `,${o.burn}` : ""}[vb]`,
  );
  const inputs = [..._pieceInputs(source, pieces), "-i", o.background];
  const logoInput = o.brandFiles?.logo ? (inputs.push(...SAFE_INPUT, "-i", o.brandFiles.logo), bgIndex + 1) : undefined;
  const out = brandTail(parts, {
    v: "vb",
    a: _finishAudio(parts, "aout", o),
    width: W,
    height: H,
    fps: o.fps,
    brand: o.brand,
    files: o.brandFiles,
    logoInput,
  });
  return _finalArgs(inputs, parts, out, total, o);
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
    ...brand,
    ...o,
  });
}
