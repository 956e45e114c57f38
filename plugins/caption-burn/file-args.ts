/**
 * The ffmpeg arguments that burn captions over a cut file (older runs, and pipelines whose cut
 * encodes) rather than render a plan from the source. Apart from the stage's run because this is
 * the one command line caption-burn builds itself; a plan's comes from daemon/render/clip-graph.ts.
 */
import { SAFE_INPUT, finalEncodeArgs } from "../../daemon/render/render.js";
import { bleepFilter, type Span } from "../../daemon/render/censor.js";

/** A bleep re-encodes the audio under its tone; without one (or without sound) the audio is copied. */
export function burnOverFileArgs(
  source: string,
  filter: string,
  o: { bleep: Span[]; audioCodec?: string; preset?: string; output: string },
): string[] {
  return o.bleep.length && o.audioCodec
    ? [
        ...SAFE_INPUT,
        "-i",
        source,
        "-filter_complex",
        [
          `[0:v:0]${filter}[v]`,
          "[0:a:0]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo[a0]",
          bleepFilter(o.bleep, "a0", "a"),
        ].join(";"),
        "-map",
        "[v]",
        "-map",
        "[a]",
        ...finalEncodeArgs({ preset: o.preset }),
        o.output,
      ]
    : [
        ...SAFE_INPUT,
        "-i",
        source,
        "-vf",
        filter,
        "-map",
        "0:v:0",
        "-map",
        "0:a:0?",
        ...finalEncodeArgs({ copyAudio: true, preset: o.preset }),
        o.output,
      ];
}
