import { createHash } from "node:crypto";
import { Type } from "@sinclair/typebox";
import {
  Defaulted,
  defineStage,
  resolveOptions,
  StageError,
  StringEnum,
  type StageInput,
  type StageWith,
} from "../../daemon/engine/stage.js";
import { stepFile } from "../../daemon/storage/storage.js";
import { isShow, textOf } from "./brief-features.js";
import { embedAhead } from "./sentence-model.js";
import { findClips, isShortRecording, prepare, type Clip } from "./heuristic.js";
import { confirmClipGaps } from "./gaps.js";
import { markUnsureTitles } from "./title-confidence.js";
import { findClipsWithLlm, llmSettings } from "./llm.js";
import { measureLoudness } from "./loudness.js";
import type { Transcript } from "./text.js";

/** Limits without target_seconds: 30–150 s, with the length score peaking at 60 s. */
const NO_TARGET = { target: 60, min: 30, max: 150 };

/** The `with:` options of find-clips: the one place their limits, defaults and descriptions are written. */
export const FindClipsOptionsSchema = Type.Object(
  {
    engine: Defaulted(
      StringEnum(["heuristic", "llm"], {
        description:
          "`heuristic` (local, transcript-based) or `llm` (an OpenAI-compatible chat " +
          "endpoint from config `llm.*`, checked against the transcript, heuristic fallback).",
      }),
      "heuristic",
    ),
    target_seconds: Type.Optional(
      Type.Number({
        minimum: 15,
        maximum: 180,
        description: "Wanted length. When given, clips are target ±20% unless min/max are set.",
      }),
    ),
    min_seconds: Type.Optional(
      Type.Number({
        minimum: 1,
        maximum: 600,
        "x-default": `${NO_TARGET.min}, or target −20%`,
        description: "Shortest clip (spoken length, after silences are cut out).",
      }),
    ),
    max_seconds: Type.Optional(
      Type.Number({
        minimum: 5,
        maximum: 600,
        "x-default": `${NO_TARGET.max}, or target +20%`,
        description: "Longest clip (spoken length, after silences are cut out).",
      }),
    ),
    count: Defaulted(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description: "Most clips returned (in search mode: most clips added).",
      }),
      10,
    ),
    content_type: Defaulted(
      StringEnum(["podcast", "stream", "other"], { description: "What the recording is; told to the llm engine." }),
      "podcast",
    ),
    about: Type.Optional(
      Type.String({
        maxLength: 500,
        description:
          "Search brief: rank windows by relevance to it and add clips to the existing list; see *Search mode* below.",
      }),
    ),
    loudness: Defaulted(
      Type.Boolean({ description: "Measure loudness per second with ffmpeg (astats) for the energy signal." }),
      true,
    ),
  },
  { additionalProperties: false },
);
export type FindClipsOptions = StageWith<typeof FindClipsOptionsSchema>;

/** Turns the options into concrete limits, rejecting contradictory ones. */
export function resolveLimits(given: FindClipsOptions): { target: number; min: number; max: number; count: number } {
  const o = resolveOptions(FindClipsOptionsSchema, given);
  const t = o.target_seconds;
  const min = o.min_seconds ?? (t ? Math.round(t * 0.8) : NO_TARGET.min);
  const max = o.max_seconds ?? (t ? Math.round(t * 1.2) : NO_TARGET.max);
  if (min > max) {
    throw new StageError("bad_options", `find-clips: min_seconds (${min}) is above max_seconds (${max})`);
  }
  const target = Math.min(max, Math.max(min, t ?? NO_TARGET.target));
  return { target, min, max, count: o.count };
}

/**
 * The transcript to work on: inline (the transcript JSON itself as the input, as `clipd stage
 * find-clips --input transcript.json` gives it, or `input.transcript` holding words), else read
 * from storage at `input.transcript.key`.
 */
async function _loadTranscript(
  input: StageInput,
  read: (key: string) => Promise<Buffer>,
): Promise<{ transcript: Transcript; key: string | null }> {
  const inline = Array.isArray(input.words)
    ? input
    : Array.isArray(input.transcript?.words)
      ? input.transcript
      : undefined;
  if (inline) {
    const bad = (inline.words as Array<{ text?: unknown; start?: unknown; end?: unknown } | null>).findIndex(
      (w) => !w || typeof w.text !== "string" || typeof w.start !== "number" || typeof w.end !== "number",
    );
    if (bad >= 0)
      throw new StageError("bad_input", `find-clips: transcript word ${bad} needs text, start and end (seconds)`);
    return { transcript: inline as Transcript, key: null };
  }
  const key: string | undefined = input.transcript?.key;
  if (!key)
    throw new StageError(
      "bad_input",
      "find-clips needs a transcript: input.transcript.key, or the transcript itself (words, segments) as the input",
    );
  try {
    return { transcript: JSON.parse((await read(key)).toString("utf8")), key };
  } catch (err) {
    throw new StageError("bad_input", `find-clips could not read the transcript "${key}"`, { cause: err });
  }
}

/** A stable seed for refs of an inline transcript: the same words give the same refs. */
const _inlineSeed = (t: Transcript) =>
  `inline:${createHash("sha1")
    .update(JSON.stringify(t.words.map((w) => [w.text, w.start, w.end])))
    .digest("hex")
    .slice(0, 16)}`;

export default defineStage<FindClipsOptions>({
  name: "find-clips",
  needs: ["transcript"],
  provides: ["clips"],
  summary: "Finds the moments of an episode worth posting as clips, ranked with reasons",
  options: FindClipsOptionsSchema,
  async run(input, ctx) {
    const o = resolveOptions(FindClipsOptionsSchema, ctx.options);
    const limits = resolveLimits(o);
    const { transcript, key: tKey } = await _loadTranscript(input, (k) => ctx.storage.read(k));
    const duration: number = input.media?.duration || input.transcript?.duration || transcript.duration || 0;

    let loudness: number[] | undefined;
    const sourceKey: string | undefined = input.source?.key;
    if (o.loudness && sourceKey && duration >= limits.min && (await ctx.storage.exists(sourceKey))) {
      try {
        loudness = await measureLoudness(await stepFile(ctx, sourceKey), {
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
    const findOpts = {
      ...limits,
      about,
      seed: sourceKey ?? tKey ?? _inlineSeed(transcript),
      duration,
      loudness,
      existing,
    };
    const prepared = prepare(transcript, findOpts);
    // A brief is matched by a sentence model too: the episode's sentences are embedded here (kept
    // by text, so a later brief on the same episode embeds only itself).
    if (about && prepared.words.length) {
      ctx.progress(62, "reading the brief");
      await embedAhead([about, ...prepared.sentences.filter((s) => !isShow(s)).map(textOf)], (m) => ctx.log.warn(m));
    }

    let clips: Clip[] | undefined;
    let engineUsed: "heuristic" | "llm" = "heuristic";
    let fallbackReason: string | null = null;
    let llm: Record<string, unknown> | undefined;
    if (o.engine === "llm") {
      const settings = llmSettings(ctx.config);
      if (!prepared.words.length) fallbackReason = "the transcript has no words";
      else if (isShortRecording(prepared, limits.min))
        fallbackReason = "the recording is shorter than the shortest clip, so it is one whole clip";
      else if (!settings)
        fallbackReason = "the llm engine is not configured (config llm.base_url / llm.api_key, or openai.*)";
      else {
        ctx.progress(65, `asking ${settings.model}`);
        try {
          const r = await findClipsWithLlm(prepared, { ...findOpts, contentType: o.content_type }, settings, {
            signal: ctx.signal,
            log: ctx.log,
          });
          const added = r.clips.length - existing.length;
          llm = { model: r.model, proposed: r.proposed, accepted: added, rejected: r.rejected };
          // A brief answered only by clips already listed still counts as the model's answer.
          if (added > 0 || (about && r.clips.some((c) => c.answers?.some((a) => a.about === about)))) {
            clips = r.clips;
            engineUsed = "llm";
          } else {
            const why = r.rejected
              .slice(0, 3)
              .map((x) => x.reason)
              .join("; ");
            fallbackReason = `the model's answer held no valid clip (${r.proposed} proposed${why ? `: ${why}` : ""})`;
          }
          if (r.rejected.length) ctx.log.info({ rejected: r.rejected }, "find-clips: llm spans rejected");
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          fallbackReason = `the llm request failed: ${(err as Error)?.message ?? String(err)}`;
          llm = { model: settings.model, error: (err as Error)?.message ?? String(err) };
        }
      }
      if (fallbackReason)
        ctx.log.warn(
          { fallback_reason: fallbackReason },
          "find-clips: llm engine not used, falling back to the heuristic",
        );
    }
    clips ??= findClips(transcript, findOpts, prepared);
    // Silences cut inside a clip are held to what the audio confirms; clips already listed stay as they were.
    if (sourceKey && clips.some((c) => c.pieces.length > 1) && (await ctx.storage.exists(sourceKey))) {
      const listed = new Set(existing.map((c) => c.ref));
      try {
        clips = await confirmClipGaps(clips, await stepFile(ctx, sourceKey), {
          workdir: ctx.workdir,
          signal: ctx.signal,
          skip: (c) => listed.has(c.ref),
        });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        ctx.log.warn(
          { err },
          "find-clips: the audio could not be read to confirm silences, cutting them by word times",
        );
      }
    }
    clips = markUnsureTitles(clips, prepared.words, existing);
    if (!clips.length && !prepared.words.length) {
      throw new StageError("no_speech", "find-clips: the transcript has no words to make clips from");
    }
    const clipsKey = `runs/${ctx.runId}/clips.json`;
    await ctx.storage.write(
      clipsKey,
      JSON.stringify(
        {
          engine: o.engine,
          engine_used: engineUsed,
          fallback_reason: fallbackReason,
          ...(llm ? { llm } : {}),
          transcript_key: tKey,
          limits,
          about: about ?? null,
          clips,
        },
        null,
        2,
      ),
    );
    ctx.progress(100, `${clips.length} clips`);
    return { clips, clips_key: clipsKey, engine_used: engineUsed, fallback_reason: fallbackReason };
  },
});
