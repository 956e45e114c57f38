/**
 * The parts both clip graphs (video and audio) are built from: each piece as its own seeked input,
 * its audio chain, the finished sound and the command line's tail. Apart from clip-graph.ts so the
 * graphs there read as what differs between them.
 */
import type { Piece } from "./timeline.js";
import { DEFAULT_PRESET, SAFE_INPUT, finalEncodeArgs } from "./render.js";
import { cardTimes, type PlanBrand } from "./brand-graph.js";
import { type AudioMeasure, DEFAULT_LOUDNESS, finishAudioFilter, type LoudnessTarget } from "./loudness.js";

export const n3 = (v: number) => v.toFixed(3);

export function pieceInputs(source: string, pieces: Piece[]): string[] {
  return pieces.flatMap((p) => [...SAFE_INPUT, "-ss", n3(p.start), "-t", n3(p.end - p.start + 0.1), "-i", source]);
}

export function audioChain(i: number, p: Piece): string {
  return [
    `[${i}:a:0]atrim=duration=${n3(p.end - p.start)}`,
    "asetpts=PTS-STARTPTS",
    "aresample=48000",
    `aformat=sample_fmts=fltp:channel_layouts=stereo[a${i}]`,
  ].join(",");
}

/**
 * The clip's own sound finished (the fold of split stereo, the loudness), before the brand's cards
 * are joined: their room tone keeps its own quiet level whatever gain the speech needed.
 */
export function finishAudio(
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
export function finalArgs(
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
