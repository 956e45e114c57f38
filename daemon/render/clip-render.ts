/**
 * One ffmpeg render of a clip with the check every rendering stage applies to its output: the
 * picture size, H.264 video with AAC audio, and the expected duration. cut and caption-burn both
 * render through it, so a failed render means the same thing (and is retried the same way) in each.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { isStageError, StageError, type StageContext } from "../engine/stage.js";
import { FfmpegError, probeMedia, runFfmpeg, type MediaSummary } from "./render.js";
import { stepFile } from "../storage/storage.js";
import { cardLines, type BrandFiles } from "./brand-graph.js";
import type { RenderPlan } from "./clip-graph.js";

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

/**
 * Runs ffmpeg, then probes the output; a failure is a `render_failed` StageError (retryable when it may pass next
 * time).
 */
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
  if (
    got.width !== o.width ||
    got.height !== o.height ||
    got.videoCodec !== "h264" ||
    got.audioCodec !== "aac" ||
    Math.abs(got.duration - o.duration) > o.tolerance
  ) {
    throw new StageError(
      "render_failed",
      `${o.stage}: output check failed for clip ${o.ref}: got ${got.width}x${got.height} ` +
        `${got.videoCodec}/${got.audioCodec} ${got.duration.toFixed(2)} s, wanted ` +
        `${o.width}x${o.height} h264/aac ${o.duration.toFixed(2)} s`,
      { retryable: true },
    );
  }
  return got;
}

/**
 * A plan's files on local disk: the source, the audio still, and the brand's logo and font; each
 * card line is written to its own text file (drawtext reads it as is, so no text is ever parsed as
 * filter syntax). A logo or font gone from storage is left out with a warning rather than failing
 * the clip: the kit was checked when saved, and the clip is still worth having without it.
 */
export async function planFiles(
  ctx: StageContext<unknown>,
  plan: RenderPlan,
): Promise<{ source: string; background?: string; brand: BrandFiles }> {
  const source = await stepFile(ctx, plan.source_key);
  const background = plan.background_key ? await stepFile(ctx, plan.background_key) : undefined;
  const b = plan.brand;
  const brand: BrandFiles = {};
  const local = async (key: string | undefined, what: string) => {
    if (!key) return undefined;
    if (await ctx.storage.exists(key)) return stepFile(ctx, key);
    ctx.log.warn({ key }, `brand ${what} not in storage; rendering without it`);
    return undefined;
  };
  brand.logo = await local(b?.logo?.key, "logo");
  brand.font = await local(b?.font?.key, "font");
  for (const name of ["intro", "outro"] as const) {
    const card = b?.[name];
    if (!card?.text?.trim()) continue;
    const { lines } = cardLines(card, plan.width, plan.height);
    const files: string[] = [];
    for (const [i, line] of lines.entries()) {
      files.push(`${name}-${i}.txt`);
      await writeFile(path.join(ctx.workdir, `${name}-${i}.txt`), line);
    }
    brand[name] = files;
  }
  return { source, ...(background ? { background } : {}), brand };
}
