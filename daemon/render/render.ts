/**
 * Spawning ffmpeg/ffprobe for the rendering stages (cut, caption-burn, find-clips loudness).
 *
 * ffmpeg runs with `-progress pipe:1`, so progress comes from `out_time_us` against the expected
 * output duration. The child is killed when the stage's signal aborts. On failure the error
 * carries the tail of stderr, which is where ffmpeg says what went wrong.
 */
import path from "node:path";
import { isStageError } from "../engine/stage.js";
import { toolDiskFull } from "../storage/disk-full.js";
import { takeEncodeSlot } from "./encode-slots.js";
import { activeEncoder, encoderGlobalArgs, videoCodecArgs, type VideoEncoder } from "./encoder.js";
import { ffmpegPath, ffprobePath, runTool, SAFE_INPUT_ARGS } from "./ffmpeg.js";

export { encoderFilterTail } from "./encoder.js";

export interface FfmpegOptions {
  /** Aborts (kills) the child process. */
  signal?: AbortSignal;
  /** Expected output duration in seconds, for progress. */
  duration?: number;
  /** Called with 0–100 as ffmpeg reports its output time. */
  onProgress?: (percent: number) => void;
  /** Working folder of the child (lets filter arguments use plain relative file names). */
  cwd?: string;
}

export class FfmpegError extends Error {
  readonly stderr: string;
  readonly exitCode: number | null;
  constructor(message: string, stderr: string, exitCode: number | null, cause?: unknown) {
    super(message, { cause });
    this.name = "FfmpegError";
    this.stderr = stderr;
    this.exitCode = exitCode;
  }
}

/** Runs a tool through the shared runner (_ffmpeg.ts); a non-zero exit becomes an FfmpegError. */
async function _spawnCollect(
  bin: string,
  args: string[],
  opts: FfmpegOptions,
  onStdoutLine?: (line: string) => void,
): Promise<{ stdout: string; stderr: string }> {
  let r;
  try {
    r = await runTool(bin, args, { signal: opts.signal, cwd: opts.cwd, onStdoutLine });
  } catch (err) {
    if (opts.signal?.aborted || isStageError(err)) throw err; // an abort, or tool_missing
    throw new FfmpegError(`${bin} could not start: ${(err as Error).message}`, "", null, err);
  }
  if (r.code !== 0) {
    const last = r.stderr.trim().split("\n").slice(-3).join(" | ");
    const failed = new FfmpegError(`${bin} exited with code ${r.code}: ${last}`, r.stderr, r.code);
    // A full disk is the service's capacity, not a bad render: insufficient_storage (disk-full.ts).
    throw toolDiskFull(path.basename(bin), r.stderr, failed) ?? failed;
  }
  return { stdout: r.stdout, stderr: r.stderr };
}

/**
 * Runs ffmpeg with the given arguments (input/output flags included), reporting progress. An
 * encode (its arguments name `-c:v`, as every render's finalEncodeArgs do) waits for one of the
 * process's encode slots (`render.concurrency`, encode-slots.ts).
 */
export async function runFfmpeg(args: string[], opts: FfmpegOptions = {}): Promise<{ stderr: string }> {
  const full = ["-hide_banner", "-nostdin", "-y", "-nostats", "-progress", "pipe:1", ...args];
  let last = -1;
  const release = args.includes("-c:v") ? await takeEncodeSlot(opts.signal) : undefined;
  const { stderr } = await _spawnCollect(ffmpegPath(), full, opts, (line) => {
    if (!opts.onProgress || !opts.duration) return;
    const m = /^out_time_us=(\d+)/.exec(line) ?? /^out_time_ms=(\d+)/.exec(line);
    if (!m) return;
    const pct = Math.max(0, Math.min(100, (Number(m[1]) / 1e6 / opts.duration) * 100));
    if (Math.floor(pct) !== last) {
      last = Math.floor(pct);
      opts.onProgress(pct);
    }
  }).finally(() => release?.());
  return { stderr };
}

export interface MediaSummary {
  duration: number;
  width?: number;
  height?: number;
  videoCodec?: string;
  videoProfile?: string;
  pixFmt?: string;
  audioCodec?: string;
}

/** ffprobe's view of a file: container duration and the first video and audio stream. */
export async function probeMedia(file: string, opts: FfmpegOptions = {}): Promise<MediaSummary> {
  const { stdout } = await _spawnCollect(
    ffprobePath(),
    ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", file],
    opts,
  );
  // biome-ignore lint/suspicious/noExplicitAny: ffprobe JSON: stream entries differ by codec
  const info = JSON.parse(stdout) as { format?: { duration?: string }; streams?: Array<Record<string, any>> };
  const v = info.streams?.find((s) => s.codec_type === "video");
  const a = info.streams?.find((s) => s.codec_type === "audio");
  return {
    duration: Number(info.format?.duration ?? 0),
    width: v?.width,
    height: v?.height,
    videoCodec: v?.codec_name,
    videoProfile: v?.profile,
    pixFmt: v?.pix_fmt,
    audioCodec: a?.codec_name,
  };
}

/** Put before every `-i` of a user file: a crafted playlist cannot make ffmpeg open URLs or devices. */
export const SAFE_INPUT: readonly string[] = SAFE_INPUT_ARGS;

/** Escapes a value for use inside an ffmpeg filter-graph option (`file=...`). */
export function escapeFilterValue(value: string): string {
  return value.replace(/[\\':,;\[\]]/g, (c) => `\\${c}`);
}

/** The x264 presets a stage may choose (the `preset` option of cut and caption-burn). */
export const X264_PRESETS = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium"] as const;

/**
 * The shipped x264 preset and CRF, chosen by rate and distortion at equal quality (issue 39;
 * bench/render's encode table, docs/benchmarks.md, "Final encode by rate and distortion"): the
 * fewest bytes whose SSIM against a near-lossless encode stays at 0.998 or more on a clean picture.
 * veryfast at CRF 22 spends 0.46 of superfast CRF 20's bytes there (superfast has no macroblock
 * tree, so a still background costs it every frame) and sheds noise superfast pays the ceiling for
 * (0.35 of the bytes at equal SSIM); superfast needs CRF 25 to come down to veryfast CRF 20's SSIM and
 * still spends 1.2 times its bytes. The cost is x264's own time: about 1.45 times superfast's on an
 * encode alone, a smaller share of a render. Before: superfast at CRF 20, chosen at equal size, which
 * hid what the macroblock tree saves at equal quality. A pipeline may still name another preset.
 */
export const DEFAULT_PRESET: (typeof X264_PRESETS)[number] = "veryfast";

/** The H.264 profile x264 writes at a preset (ultrafast has no CABAC or B-frames: Constrained Baseline). */
export const profileOfPreset = (preset: string): string => (preset === "ultrafast" ? "Constrained Baseline" : "High");

/** The CRF of every rendered clip (with DEFAULT_PRESET: see there). */
export const DEFAULT_CRF = 22;

/**
 * The peak bitrate of a 1080×1920 clip at 30 fps (kbit/s): a CRF alone lets grain or confetti cost
 * 40 Mbit/s; the platforms re-encode anything far above about 12. The VBV buffer holds two seconds.
 */
export const PEAK_KBPS_1080x1920 = 12_000;

/** VBV ceiling for a frame size, scaled by area from PEAK_KBPS_1080x1920. */
export function peakRateArgs(width: number, height: number): string[] {
  const kbps = Math.round((PEAK_KBPS_1080x1920 * (width * height)) / (1080 * 1920));
  return ["-maxrate", `${kbps}k`, "-bufsize", `${kbps * 2}k`];
}

/**
 * Every render says it is BT.709 (HD video's colours: primaries, transfer, matrix, limited range), so
 * players never guess: without tags a phone may show an RGB-made frame (cards, the audio still) in
 * BT.601 colours.
 */
export const BT709_ARGS: readonly string[] = [
  "-colorspace",
  "bt709",
  "-color_primaries",
  "bt709",
  "-color_trc",
  "bt709",
  "-color_range",
  "tv",
];

/**
 * Threads, set rather than left to ffmpeg's defaults (bench/render and per-thread CPU times,
 * docs/benchmarks.md, render):
 * - `-threads 0`: x264 takes its own count (1.5 × cores frame threads plus lookahead), which is
 *   what lets one encode keep both cores of a 2-core worker busy;
 * - filter threads 1: a 20 s clip's graph took 10.9 CPU s, its busiest thread 3.2 s, with one
 *   filter thread and with ffmpeg's default of one per core alike; the extra filter threads (12
 *   threads in all instead of 8) only compete with x264's.
 */
export const THREAD_ARGS: readonly string[] = ["-threads", "0", "-filter_complex_threads", "1", "-filter_threads", "1"];

/**
 * The encoder flags every rendered clip uses: H.264 (High at most), yuv420p, DEFAULT_CRF, AAC, faststart, on the
 * process's encoder (`render.encoder`, daemon/render/encoder.ts) unless `encoder` names one. A graph
 * feeding VAAPI must end with `encoderFilterTail()`.
 */
export function finalEncodeArgs(
  opts: {
    crf?: number;
    preset?: string;
    copyAudio?: boolean;
    encoder?: VideoEncoder;
    /** The frame's size, which scales the peak bitrate (PEAK_KBPS_1080x1920 at 1080×1920). */
    width?: number;
    height?: number;
  } = {},
): string[] {
  const encoder = opts.encoder ?? activeEncoder().encoder;
  return [
    ...encoderGlobalArgs(encoder),
    ...THREAD_ARGS,
    ...videoCodecArgs(encoder, opts.preset ?? DEFAULT_PRESET, opts.crf ?? DEFAULT_CRF),
    ...peakRateArgs(opts.width ?? 1080, opts.height ?? 1920),
    ...BT709_ARGS,
    ...(opts.copyAudio ? ["-c:a", "copy"] : ["-c:a", "aac", "-b:a", "160k", "-ar", "48000", "-ac", "2"]),
    "-movflags",
    "+faststart",
  ];
}
