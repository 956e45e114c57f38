import { defineStage, StageError } from "../../daemon/stage.js";
import { findClips, type Clip } from "./heuristic.js";
import { measureLoudness } from "./loudness.js";
import type { Transcript } from "./text.js";

export interface FindClipsOptions {
  /** Which finder runs. Default "heuristic" (local, transcript-based). */
  engine?: "heuristic";
  /** Wanted clip length in seconds (15–180); when given, clips are target ±20%. Default 45. */
  target_seconds?: number;
  /** Shortest clip, seconds. Default 15 (or target −20% when target_seconds is given). */
  min_seconds?: number;
  /** Longest clip, seconds. Default 90 (or target +20% when target_seconds is given). */
  max_seconds?: number;
  /** Most clips to return. Default 10. */
  count?: number;
  /** What the recording is; kept for engines that use it. Default "podcast". */
  content_type?: "podcast" | "stream" | "other";
  /** Search brief (≤500 chars): rank windows by relevance and add clips to the existing list. */
  about?: string;
  /** Measure loudness with ffmpeg for the energy score. Default true. */
  loudness?: boolean;
}

export const FIND_DEFAULTS = { target: 45, min: 15, max: 90, count: 10 };

/** Turns the options into concrete limits, rejecting contradictory ones. */
export function resolveLimits(o: FindClipsOptions): { target: number; min: number; max: number; count: number } {
  const t = o.target_seconds;
  const min = o.min_seconds ?? (t ? Math.round(t * 0.8) : FIND_DEFAULTS.min);
  const max = o.max_seconds ?? (t ? Math.round(t * 1.2) : FIND_DEFAULTS.max);
  if (min > max) {
    throw new StageError("bad_options", `find-clips: min_seconds (${min}) is above max_seconds (${max})`);
  }
  const target = Math.min(max, Math.max(min, t ?? FIND_DEFAULTS.target));
  return { target, min, max, count: o.count ?? FIND_DEFAULTS.count };
}

export default defineStage<FindClipsOptions>({
  name: "find-clips",
  summary: "Finds the moments of an episode worth posting as clips, ranked with reasons",
  options: {
    type: "object",
    properties: {
      engine: { type: "string", enum: ["heuristic"], default: "heuristic", description: "Clip finder engine." },
      target_seconds: { type: "number", minimum: 15, maximum: 180, description: "Wanted clip length; clips are within ±20%." },
      min_seconds: { type: "number", minimum: 1, maximum: 600, description: "Shortest clip (default 15)." },
      max_seconds: { type: "number", minimum: 5, maximum: 600, description: "Longest clip (default 90)." },
      count: { type: "integer", minimum: 1, maximum: 100, default: 10, description: "Most clips to return." },
      content_type: { type: "string", enum: ["podcast", "stream", "other"], default: "podcast" },
      about: { type: "string", maxLength: 500, description: "Search brief: find clips about this." },
      loudness: { type: "boolean", default: true, description: "Use loudness (ffmpeg) in the energy score." },
    },
    additionalProperties: false,
  },
  async run(input, ctx) {
    const o = ctx.options ?? {};
    const limits = resolveLimits(o);
    const tKey: string | undefined = input.transcript?.key;
    if (!tKey) throw new StageError("bad_input", "find-clips needs a transcript (input.transcript.key)");
    let transcript: Transcript;
    try {
      transcript = JSON.parse((await ctx.storage.read(tKey)).toString("utf8"));
    } catch (err) {
      throw new StageError("bad_input", `find-clips could not read the transcript "${tKey}"`, { cause: err });
    }
    const duration: number = input.media?.duration ?? input.transcript?.duration ?? transcript.duration ?? 0;

    let loudness: number[] | undefined;
    const sourceKey: string | undefined = input.source?.key;
    if (o.loudness !== false && sourceKey && duration >= limits.min && (await ctx.storage.exists(sourceKey))) {
      try {
        loudness = await measureLoudness(ctx.storage.pathOf(sourceKey), {
          workdir: ctx.workdir,
          signal: ctx.signal,
          duration,
          onProgress: (p) => ctx.progress(p * 0.6, "measuring loudness"),
        });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        // Loudness only refines the ranking; a recording ffmpeg cannot decode here still gets clips.
        ctx.log.warn({ err }, "find-clips: loudness measurement failed, ranking without it");
      }
    }
    ctx.progress(60, "scoring windows");

    const existing: Clip[] = o.about && Array.isArray(input.clips) ? input.clips : [];
    const clips = findClips(transcript, {
      ...limits,
      about: o.about?.trim() || undefined,
      seed: sourceKey ?? tKey,
      duration,
      loudness,
      existing,
    });
    if (!clips.length && !transcript.words?.length) {
      throw new StageError("no_speech", "find-clips: the transcript has no words to make clips from");
    }
    const clipsKey = `runs/${ctx.runId}/clips.json`;
    await ctx.storage.write(
      clipsKey,
      JSON.stringify({ engine: "heuristic", transcript_key: tKey, limits, about: o.about ?? null, clips }, null, 2),
    );
    ctx.progress(100, `${clips.length} clips`);
    return { clips, clips_key: clipsKey };
  },
});
