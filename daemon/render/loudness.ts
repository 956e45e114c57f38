/**
 * A clip's sound as a feed expects it: normalised to an integrated loudness with a true-peak
 * ceiling (EBU R128 measures, −14 LUFS and −1 dBTP by default), and a stereo recording that keeps one
 * voice in each channel folded to the centre, so in earbuds both voices are in both ears.
 *
 * Two passes over the clip's own audio, the second inside the one render: `measureClipAudio`
 * decodes only the pieces' audio (well under a second for a minute of speech) and reads loudnorm's
 * measurement and each channel's level per 100 ms; `finishAudioFilter` then gives the render's
 * audio tail, loudnorm in linear mode with those measurements (one gain for the whole clip, no
 * pumping; loudnorm falls back to its dynamic mode only when that gain would break the ceiling).
 */
import { readFile, rm } from "node:fs/promises";
import { Type } from "@sinclair/typebox";
import path from "node:path";
import { SAFE_INPUT, runFfmpeg } from "./render.js";
import type { Piece } from "./timeline.js";

/** The loudness a render aims at: integrated LUFS and a true-peak ceiling in dBTP; or none. */
export type LoudnessTarget = { lufs: number; truePeak: number } | "off";

/** The `loudness` option of the stages that encode (cut, caption-burn): one schema for both. */
export const LoudnessOption = Type.Optional(
  Type.Union([Type.Number({ minimum: -40, maximum: -5 }), Type.Literal("off")], {
    "x-default": "render.loudness_lufs (−14)",
    description:
      "Integrated loudness of the clip's sound in LUFS (true peak held under render.true_peak_db), or `off`.",
  }),
);

export const DEFAULT_LOUDNESS: { lufs: number; truePeak: number } = { lufs: -14, truePeak: -1 };

/** What the first pass found. */
export interface AudioMeasure {
  /** Integrated loudness (LUFS), true peak (dBTP), loudness range (LU), gate threshold, as loudnorm reads them. */
  input_i: number;
  input_tp: number;
  input_lra: number;
  input_thresh: number;
  /** loudnorm's own correction for its second pass (LU). */
  target_offset: number;
  /** One voice per channel: the render folds the two channels to the centre. */
  split: boolean;
}

/** Share of voiced 100 ms windows that must lean clearly to one side for the stereo to count as split. */
const SPLIT_SHARE = 0.5;
/**
 * A window leans when its channels are this far apart (dB). Two microphones a metre apart each hear
 * the other voice 6–12 dB down (the trial's recording: −10 dB of bleed), which leaves each voice
 * mostly in one ear as surely as a silent side does; a stereo room or a centred voice stays within
 * a few dB (issue 39). One silent side was the old rule (12 dB).
 */
const LEAN_DB = 6;
/** A window is voiced when its louder channel is above this (dBFS). */
const VOICED_DB = -50;

/**
 * AAC's own reconstruction lifts true peaks by a few tenths of a dB over the PCM it was given
 * (measured: −0.6 dBTP out of a −1 dBTP loudnorm), so the limiter aims this far under the ceiling.
 */
export const AAC_HEADROOM_DB = 1.2;

const FOLD = "pan=stereo|c0=0.5*c0+0.5*c1|c1=0.5*c0+0.5*c1";

function piecesGraph(pieces: Piece[], tail: string): string {
  const chains = pieces.map(
    (p, i) =>
      `[${i}:a:0]atrim=duration=${(p.end - p.start).toFixed(3)},asetpts=PTS-STARTPTS,` +
      `aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo[m${i}]`,
  );
  return `${chains.join(";")};${pieces.map((_, i) => `[m${i}]`).join("")}concat=n=${pieces.length}:v=0:a=1,${tail}`;
}

function parseLoudnorm(stderr: string): Omit<AudioMeasure, "split"> | undefined {
  const at = stderr.lastIndexOf('"input_i"');
  if (at < 0) return undefined;
  const open = stderr.lastIndexOf("{", at);
  const close = stderr.indexOf("}", at);
  const j = JSON.parse(stderr.slice(open, close + 1)) as Record<string, string>;
  const n = (k: string) => Number(j[k]);
  return {
    input_i: n("input_i"),
    input_tp: n("input_tp"),
    input_lra: n("input_lra"),
    input_thresh: n("input_thresh"),
    target_offset: n("target_offset") || 0,
  };
}

/** Whether per-window levels of two channels show one voice on each side. */
export function isSplitStereo(left: number[], right: number[]): boolean {
  let voiced = 0;
  let leftLean = 0;
  let rightLean = 0;
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const l = left[i]!;
    const r = right[i]!;
    if (Math.max(l, r) < VOICED_DB) continue;
    voiced++;
    if (l - r >= LEAN_DB) leftLean++;
    else if (r - l >= LEAN_DB) rightLean++;
  }
  if (!voiced || (leftLean + rightLean) / voiced < SPLIT_SHARE) return false;
  // Both sides must speak: one voice panned hard to one side is one voice, centred by the fold anyway
  // only when the other side is empty, which the lean share already shows.
  const lean = leftLean + rightLean;
  return leftLean / lean >= 0.1 && rightLean / lean >= 0.1;
}

function levels(text: string, channel: number): number[] {
  const key = `lavfi.astats.${channel}.RMS_level=`;
  return text
    .split("\n")
    .filter((l) => l.startsWith(key))
    .map((l) => {
      const v = Number(l.slice(key.length));
      return Number.isFinite(v) ? v : -120;
    });
}

/** The first pass: loudness and channel balance of the clip's pieces of `source`. Undefined without audio. */
export async function measureClipAudio(
  source: string,
  pieces: Piece[],
  o: { workdir: string; signal?: AbortSignal; target?: { lufs: number; truePeak: number } },
): Promise<AudioMeasure | undefined> {
  if (!pieces.length) return undefined;
  const t = o.target ?? DEFAULT_LOUDNESS;
  const ln = `loudnorm=I=${t.lufs}:TP=${t.truePeak}:LRA=11:print_format=json`;
  const inputs = pieces.flatMap((p) => [
    ...SAFE_INPUT,
    "-ss",
    p.start.toFixed(3),
    "-t",
    (p.end - p.start + 0.1).toFixed(3),
    "-vn",
    "-i",
    source,
  ]);
  const stats = path.join(o.workdir, "channel-levels.txt");
  const tail =
    `asplit=2[ln][st];[ln]${ln}[o1];[st]asetnsamples=n=4800:p=0,astats=metadata=1:reset=1,` +
    `ametadata=mode=print:file=channel-levels.txt[o2]`;
  let first: { stderr: string };
  try {
    first = await runFfmpeg(
      [...inputs, "-filter_complex", piecesGraph(pieces, tail), "-map", "[o1]", "-f", "null", "-"].concat([
        "-map",
        "[o2]",
        "-f",
        "null",
        "-",
      ]),
      { signal: o.signal, cwd: o.workdir },
    );
  } catch (err) {
    // A cancelled step stops here. Any other failure (no audio stream, a damaged source) leaves the
    // sound unmeasured: the render that follows reads the same file and fails with its own, classified
    // error (render_failed) if the file is really broken.
    if (o.signal?.aborted) throw err;
    return undefined;
  }
  const text = await readFile(stats, "utf8").catch(() => "");
  await rm(stats, { force: true });
  const split = isSplitStereo(levels(text, 1), levels(text, 2));
  let m = parseLoudnorm(first.stderr);
  if (split) {
    const folded = await runFfmpeg(
      [...inputs, "-filter_complex", piecesGraph(pieces, `${FOLD},${ln}[o]`), "-map", "[o]", "-f", "null", "-"],
      { signal: o.signal, cwd: o.workdir },
    );
    m = parseLoudnorm(folded.stderr) ?? m;
  }
  return m ? { ...m, split } : undefined;
}

/**
 * The render's audio tail after `[in]`: the fold (split stereo) and loudnorm in linear mode with the
 * first pass's figures, back at 48 kHz stereo. Empty (a plain pass-through) when off or unmeasurable:
 * a silent clip (below the −70 LUFS gate) has no loudness to set.
 */
export function finishAudioFilter(measure: AudioMeasure | undefined, target: LoudnessTarget): string {
  const steps: string[] = [];
  if (measure?.split) steps.push(FOLD);
  if (target !== "off" && measure && Number.isFinite(measure.input_i) && measure.input_i > -70) {
    steps.push(
      `loudnorm=I=${target.lufs}:TP=${target.truePeak - AAC_HEADROOM_DB}:LRA=11:measured_I=${measure.input_i}:` +
        `measured_TP=${measure.input_tp}:measured_LRA=${measure.input_lra}:` +
        `measured_thresh=${measure.input_thresh}:offset=${measure.target_offset}:linear=true`,
      "aresample=48000",
      "aformat=sample_fmts=fltp:channel_layouts=stereo",
    );
  }
  return steps.join(",");
}

/**
 * The target of one render: the export's own `loudness` (a number or "off") wins over the
 * operator's `render.loudness_lufs`; the ceiling is always `render.true_peak_db`.
 */
export function loudnessTarget(
  option: number | "off" | undefined,
  render: { loudness_lufs?: number | "off"; true_peak_db?: number } | undefined,
): LoudnessTarget {
  const lufs = option ?? render?.loudness_lufs ?? DEFAULT_LOUDNESS.lufs;
  return lufs === "off" ? "off" : { lufs, truePeak: render?.true_peak_db ?? DEFAULT_LOUDNESS.truePeak };
}
