/**
 * One ffmpeg render of a clip with the check every rendering stage applies to its output: the
 * picture size, H.264 video with AAC audio, and the expected duration. cut and caption-burn both
 * render through it, so a failed render means the same thing (and is retried the same way) in each.
 */
import { isStageError, StageError } from "../engine/stage.js";
import { FfmpegError, probeMedia, runFfmpeg, type MediaSummary } from "./render.js";

export interface CheckedRender {
  /** The stage and the clip, named in errors. */
  stage: string;
  ref: string;
  output: string;
  width: number;
  height: number;
  duration: number;
  /** Seconds the output's duration may differ from `duration`. */
  tolerance: number;
  cwd: string;
  signal: AbortSignal;
  onProgress?: (percent: number) => void;
}

/** Runs ffmpeg, then probes the output; a failure is a `render_failed` StageError (retryable when it may pass next time). */
export async function renderChecked(args: string[], o: CheckedRender): Promise<MediaSummary> {
  try {
    await runFfmpeg(args, { signal: o.signal, duration: o.duration, cwd: o.cwd, onProgress: o.onProgress });
  } catch (err) {
    if (o.signal.aborted || isStageError(err)) throw err; // an abort, tool_missing, or a full disk
    throw new StageError("render_failed", `${o.stage}: ffmpeg failed on clip ${o.ref}: ${(err as Error).message}`, {
      retryable: !(err instanceof FfmpegError) || err.exitCode === null,
      cause: err,
    });
  }
  const got = await probeMedia(o.output, { signal: o.signal });
  if (got.width !== o.width || got.height !== o.height || got.videoCodec !== "h264" || got.audioCodec !== "aac" || Math.abs(got.duration - o.duration) > o.tolerance) {
    throw new StageError(
      "render_failed",
      `${o.stage}: output check failed for clip ${o.ref}: got ${got.width}x${got.height} ${got.videoCodec}/${got.audioCodec} ${got.duration.toFixed(2)} s, wanted ${o.width}x${o.height} h264/aac ${o.duration.toFixed(2)} s`,
      { retryable: true },
    );
  }
  return got;
}
