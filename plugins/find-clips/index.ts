import { createHash } from "node:crypto";
import { defineStage, StageError, type StageInput } from "../../daemon/engine/stage.js";
import { findClips, isShortRecording, prepare, type Clip } from "./heuristic.js";
import { findClipsWithLlm, llmSettings } from "./llm.js";
import { measureLoudness } from "./loudness.js";
import type { Transcript } from "./text.js";

export interface FindClipsOptions {
  /** Which finder runs: "heuristic" (local, transcript-based) or "llm" (chat endpoint, checked, heuristic fallback). Default "heuristic". */
  engine?: "heuristic" | "llm";
  /** Wanted clip length in seconds (15–180); when given, clips are target ±20%. Default: none (clips of 30–150 s, ideally 60). */
  target_seconds?: number;
  /** Shortest clip, seconds. Default 30 (or target −20% when target_seconds is given). */
  min_seconds?: number;
  /** Longest clip, seconds. Default 150 (or target +20% when target_seconds is given). */
  max_seconds?: number;
  /** Most clips to return. Default 10. */
  count?: number;
  /** What the recording is; told to the llm engine. Default "podcast". */
  content_type?: "podcast" | "stream" | "other";
  /** Search brief (≤500 chars): rank windows by relevance and add clips to the existing list. */
  about?: string;
  /** Measure loudness with ffmpeg for the energy score. Default true. */
  loudness?: boolean;
}

/** Limits without target_seconds: 30–150 s, with the length score peaking at 60 s. */
export const FIND_DEFAULTS = { target: 60, min: 30, max: 150, count: 10 };

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

/**
 * The transcript to work on: inline (the transcript JSON itself as the input, as `clipd stage
 * find-clips --input transcript.json` gives it, or `input.transcript` holding words), else read
 * from storage at `input.transcript.key`.
 */
async function _loadTranscript(input: StageInput, read: (key: string) => Promise<Buffer>): Promise<{ transcript: Transcript; key: string | null }> {
  const inline = Array.isArray(input.words) ? input : Array.isArray(input.transcript?.words) ? input.transcript : undefined;
  if (inline) {
    const bad = (inline.words as unknown[]).findIndex((w: any) => !w || typeof w.text !== "string" || typeof w.start !== "number" || typeof w.end !== "number");
    if (bad >= 0) throw new StageError("bad_input", `find-clips: transcript word ${bad} needs text, start and end (seconds)`);
    return { transcript: inline as Transcript, key: null };
  }
  const key: string | undefined = input.transcript?.key;
  if (!key) throw new StageError("bad_input", "find-clips needs a transcript: input.transcript.key, or the transcript itself (words, segments) as the input");
  try {
    return { transcript: JSON.parse((await read(key)).toString("utf8")), key };
  } catch (err) {
    throw new StageError("bad_input", `find-clips could not read the transcript "${key}"`, { cause: err });
  }
}

/** A stable seed for refs of an inline transcript: the same words give the same refs. */
const _inlineSeed = (t: Transcript) =>
  `inline:${createHash("sha1").update(JSON.stringify(t.words.map((w) => [w.text, w.start, w.end]))).digest("hex").slice(0, 16)}`;

export default defineStage<FindClipsOptions>({
  name: "find-clips",
  summary: "Finds the moments of an episode worth posting as clips, ranked with reasons",
  options: {
    type: "object",
    properties: {
      engine: { type: "string", enum: ["heuristic", "llm"], default: "heuristic", description: "Clip finder: heuristic (local) or llm (chat endpoint from config llm.*, checked; falls back to heuristic)." },
      target_seconds: { type: "number", minimum: 15, maximum: 180, description: "Wanted clip length; clips are within ±20%." },
      min_seconds: { type: "number", minimum: 1, maximum: 600, description: "Shortest clip (default 30, or target −20%)." },
      max_seconds: { type: "number", minimum: 5, maximum: 600, description: "Longest clip (default 150, or target +20%)." },
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
    const { transcript, key: tKey } = await _loadTranscript(input, (k) => ctx.storage.read(k));
    const duration: number = input.media?.duration || input.transcript?.duration || transcript.duration || 0;

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

    const about = o.about?.trim() || undefined;
    const existing: Clip[] = about && Array.isArray(input.clips) ? input.clips : [];
    const findOpts = { ...limits, about, seed: sourceKey ?? tKey ?? _inlineSeed(transcript), duration, loudness, existing };
    const prepared = prepare(transcript, findOpts);

    let clips: Clip[] | undefined;
    let engineUsed: "heuristic" | "llm" = "heuristic";
    let fallbackReason: string | null = null;
    let llm: Record<string, unknown> | undefined;
    if (o.engine === "llm") {
      const settings = llmSettings(ctx.config);
      if (!prepared.words.length) fallbackReason = "the transcript has no words";
      else if (isShortRecording(prepared, limits.min)) fallbackReason = "the recording is shorter than the shortest clip, so it is one whole clip";
      else if (!settings) fallbackReason = "the llm engine is not configured (config llm.base_url / llm.api_key, or openai.*)";
      else {
        ctx.progress(65, `asking ${settings.model}`);
        try {
          const r = await findClipsWithLlm(prepared, { ...findOpts, contentType: o.content_type }, settings, { signal: ctx.signal, log: ctx.log });
          const added = r.clips.length - existing.length;
          llm = { model: r.model, proposed: r.proposed, accepted: added, rejected: r.rejected };
          if (added > 0) {
            clips = r.clips;
            engineUsed = "llm";
          } else {
            const why = r.rejected.slice(0, 3).map((x) => x.reason).join("; ");
            fallbackReason = `the model's answer held no valid clip (${r.proposed} proposed${why ? `: ${why}` : ""})`;
          }
          if (r.rejected.length) ctx.log.info({ rejected: r.rejected }, "find-clips: llm spans rejected");
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          fallbackReason = `the llm request failed: ${(err as Error)?.message ?? String(err)}`;
          llm = { model: settings.model, error: (err as Error)?.message ?? String(err) };
        }
      }
      if (fallbackReason) ctx.log.warn({ fallback_reason: fallbackReason }, "find-clips: llm engine not used, falling back to the heuristic");
    }
    clips ??= findClips(transcript, findOpts, prepared);
    if (!clips.length && !prepared.words.length) {
      throw new StageError("no_speech", "find-clips: the transcript has no words to make clips from");
    }
    const clipsKey = `runs/${ctx.runId}/clips.json`;
    await ctx.storage.write(
      clipsKey,
      JSON.stringify(
        { engine: o.engine ?? "heuristic", engine_used: engineUsed, fallback_reason: fallbackReason, ...(llm ? { llm } : {}), transcript_key: tKey, limits, about: about ?? null, clips },
        null,
        2,
      ),
    );
    ctx.progress(100, `${clips.length} clips`);
    return { clips, clips_key: clipsKey, engine_used: engineUsed, fallback_reason: fallbackReason };
  },
});
