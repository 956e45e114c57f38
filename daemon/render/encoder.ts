/**
 * Which H.264 encoder renders clips (`render.encoder`), and the flags each one takes.
 *
 * `auto` uses a hardware encoder (NVENC, Quick Sync) when ffmpeg lists one and a one-second probe
 * encode with the very flags a render would use succeeds, else libx264. Distribution builds of ffmpeg list h264_nvenc,
 * h264_vaapi and h264_qsv whether or not the machine has the hardware (Debian's does), so the list
 * alone proves nothing: the probe does. An explicit name forces that encoder and fails with an
 * error naming `render.encoder` when it cannot encode here; `libx264` forces software.
 *
 * The list and each probe are run once per process (they cost 0.1–0.5 s) and cached. The worker
 * resolves the setting at start (`configureEncoder`); until then, and in bench or test code that
 * never calls it, renders use libx264.
 */
import { ffmpegPath, runTool } from "./ffmpeg.js";

import type { EncoderSetting, VideoEncoder } from "./encoder-settings.js";

export { ENCODER_SETTINGS, type EncoderSetting, type VideoEncoder } from "./encoder-settings.js";

/** The hardware encoders clipd knows (NVENC and Quick Sync take plain frames; VAAPI needs an upload). */
export const HARDWARE_ENCODERS: readonly VideoEncoder[] = ["h264_nvenc", "h264_qsv", "h264_vaapi"];

/**
 * The ones `auto` tries, in this order. VAAPI is left out until the render graphs end with
 * `encoderFilterTail()` (daemon/render/clip-graph.ts): its probe passes on a machine with a GPU, but
 * a render's frames would not reach the GPU. Naming it still forces it.
 */
export const AUTO_ENCODERS: readonly VideoEncoder[] = ["h264_nvenc", "h264_qsv"];

/** The render node VAAPI opens; the first GPU on Linux. */
const VAAPI_DEVICE = "/dev/dri/renderD128";

export interface EncoderChoice {
  encoder: VideoEncoder;
  setting: EncoderSetting;
  /** Why this one, in words (for the log and `clipd doctor`). */
  reason: string;
}

/** `render.encoder` names an encoder that cannot encode on this machine. */
export class EncoderUnusableError extends Error {
  readonly field = "render.encoder";
  constructor(
    readonly encoder: VideoEncoder,
    why: string,
  ) {
    super(`render.encoder: ${encoder} cannot encode here (${why}); set render.encoder to auto or libx264`);
    this.name = "EncoderUnusableError";
  }
}

/**
 * Video codec flags of one encoder at an x264 preset and CRF. The hardware encoders get the nearest
 * equivalents: NVENC's p1–p7 and QSV's presets by speed, and a constant-quality mode at the same
 * number (their scales are close to x264's CRF, not equal).
 */
export function videoCodecArgs(encoder: VideoEncoder, preset: string, crf: number): string[] {
  const rank = Math.max(0, ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow"].indexOf(preset));
  switch (encoder) {
    case "h264_nvenc":
      return [
        "-c:v",
        "h264_nvenc",
        "-preset",
        `p${Math.min(7, rank + 1)}`,
        "-rc",
        "vbr",
        "-cq",
        String(crf),
        "-b:v",
        "0",
        "-profile:v",
        "high",
        "-pix_fmt",
        "yuv420p",
      ];
    case "h264_qsv":
      return [
        "-c:v",
        "h264_qsv",
        "-preset",
        rank <= 2 ? "veryfast" : preset,
        "-global_quality",
        String(crf),
        "-profile:v",
        "high",
        "-pix_fmt",
        "nv12",
      ];
    case "h264_vaapi":
      return ["-c:v", "h264_vaapi", "-rc_mode", "CQP", "-qp", String(crf), "-profile:v", "high"];
    default:
      return ["-c:v", "libx264", "-preset", preset, "-crf", String(crf), "-profile:v", "high", "-pix_fmt", "yuv420p"];
  }
}

/** Global flags an encoder needs (VAAPI: open the device and let filters upload to it). */
export function encoderGlobalArgs(encoder: VideoEncoder): string[] {
  return encoder === "h264_vaapi" ? ["-init_hw_device", `vaapi=va:${VAAPI_DEVICE}`, "-filter_hw_device", "va"] : [];
}

/**
 * What a filter graph must end with for this encoder: VAAPI encodes only frames in GPU memory, so
 * the last filter uploads them. Empty for the others.
 */
export function encoderFilterTail(encoder: VideoEncoder = activeEncoder().encoder): string {
  return encoder === "h264_vaapi" ? "format=nv12,hwupload" : "";
}

let listed: Promise<Set<string>> | undefined;
const probes = new Map<VideoEncoder, Promise<{ ok: boolean; detail: string }>>();

/** The H.264 encoders ffmpeg lists (`ffmpeg -encoders`), once per process. */
export function listedEncoders(): Promise<Set<string>> {
  listed ??= runTool(ffmpegPath(), ["-hide_banner", "-encoders"], { signal: AbortSignal.timeout(15_000) }).then(
    (r) => new Set([...r.stdout.matchAll(/^\s*V\S*\s+(\S*264\S*)\s/gm)].map((m) => m[1]!)), // group 1 always matches
    () => new Set<string>(),
  );
  return listed;
}

/** Encodes one second of test picture with the render's flags to nowhere; once per encoder and process. */
export function probeEncoder(encoder: VideoEncoder): Promise<{ ok: boolean; detail: string }> {
  let p = probes.get(encoder);
  if (!p) {
    const tail = encoderFilterTail(encoder);
    const args = [
      "-hide_banner",
      "-nostdin",
      "-v",
      "error",
      ...encoderGlobalArgs(encoder),
      "-f",
      "lavfi",
      "-i",
      "testsrc2=s=1080x1920:r=30:d=1",
      ...(tail ? ["-vf", tail] : []),
      ...videoCodecArgs(encoder, "veryfast", 20),
      "-f",
      "null",
      "-",
    ];
    p = runTool(ffmpegPath(), args, { signal: AbortSignal.timeout(30_000) }).then(
      (r) =>
        r.code === 0
          ? { ok: true, detail: "probe encode succeeded" }
          : { ok: false, detail: `probe encode failed: ${lastLine(r.stderr)}` },
      (err: Error) => ({ ok: false, detail: `probe encode did not run: ${err.message}` }),
    );
    probes.set(encoder, p);
  }
  return p;
}

function lastLine(stderr: string): string {
  const lines = stderr.trim().split("\n").filter(Boolean);
  return (lines.at(-1) ?? "no output").slice(0, 200);
}

/** Resolves a setting to an encoder; an explicit one that cannot encode throws EncoderUnusableError. */
export async function chooseEncoder(setting: EncoderSetting = "auto"): Promise<EncoderChoice> {
  if (setting === "libx264") return { encoder: "libx264", setting, reason: "render.encoder forces software (libx264)" };
  const names = await listedEncoders();
  if (setting !== "auto") {
    if (!names.has(setting)) throw new EncoderUnusableError(setting, "ffmpeg -encoders does not list it");
    const probe = await probeEncoder(setting);
    if (!probe.ok) throw new EncoderUnusableError(setting, probe.detail);
    return { encoder: setting, setting, reason: `render.encoder forces ${setting}; ${probe.detail}` };
  }
  const tried: string[] = [];
  for (const hw of AUTO_ENCODERS) {
    if (!names.has(hw)) continue;
    const probe = await probeEncoder(hw);
    if (probe.ok) return { encoder: hw, setting, reason: `auto: ffmpeg lists ${hw} and its ${probe.detail}` };
    tried.push(`${hw} listed but its ${probe.detail}`);
  }
  return {
    encoder: "libx264",
    setting,
    reason: `auto: ${tried.length ? tried.join("; ") : "ffmpeg lists no hardware H.264 encoder"}; software (libx264)`,
  };
}

let current: EncoderChoice = {
  encoder: "libx264",
  setting: "libx264",
  reason: "render.encoder not resolved in this process; software (libx264)",
};

/** Resolves `render.encoder` and makes it the encoder of every render in this process. */
export async function configureEncoder(setting: EncoderSetting = "auto"): Promise<EncoderChoice> {
  current = await chooseEncoder(setting);
  return current;
}

/** The encoder renders use now (libx264 until configureEncoder ran). */
export function activeEncoder(): EncoderChoice {
  return current;
}
