/**
 * The cut stage: cuts a clip's pieces from the source into an MP4, or plans that cut for
 * caption-burn. Its options live in options.ts and an audio clip's still in cover.ts.
 */
import { rm } from "node:fs/promises";
import path from "node:path";
import {
  defineStage,
  resolveOptions,
  StageError,
  type StageContext,
  type StageInput,
} from "../../daemon/engine/stage.js";
import { stepFile } from "../../daemon/storage/storage.js";
import { planArgs, type RenderPlan } from "../../daemon/render/clip-graph.js";
import { loudnessTarget, measureClipAudio } from "../../daemon/render/loudness.js";
import { renderChecked } from "../../daemon/render/clip-render.js";
import { frameSize } from "../../daemon/render/aspect.js";
import { planBrand } from "../../daemon/render/brand-graph.js";
import { planFraming } from "./framing.js";
import { plannedCamera, plannedScenes } from "./planned.js";
import { retimeWords, selectClip, totalDuration, type TimedWord } from "./clip.js";
import { DEFAULT_PACE, pacePieces } from "../../daemon/render/pace.js";
import { audioBackground } from "./cover.js";
import { type CutOptions, CutOptionsSchema, resolveFit } from "./options.js";

export { type CutOptions, CutOptionsSchema } from "./options.js";

export default defineStage<CutOptions>({
  name: "cut",
  needs: ["source", ["clip", "clips"]],
  provides: ["cut"],
  summary:
    "Cuts a clip's pieces frame-accurately from the source into a 9:16, 1:1, " +
    "4:5 or 16:9 MP4, or plans that cut for caption-burn",
  options: CutOptionsSchema,
  async run(input, ctx) {
    const o = resolveOptions(CutOptionsSchema, ctx.options);
    const sourceKey: string | undefined = input.source?.key;
    if (!sourceKey || !(await ctx.storage.exists(sourceKey))) {
      throw new StageError("bad_input", `cut: the source file "${sourceKey ?? "(none)"}" is not in storage`);
    }
    const media = input.media ?? {};
    const clip = selectClip(input, o, media.duration);
    const { width, height } = frameSize(o.aspect_ratio, o.width);
    const { fit, colour } = resolveFit(o);
    const source = await stepFile(ctx, sourceKey);
    // The pace decides the pieces; the crop, the words and the render all follow them (daemon/render/pace.ts).
    const episodeWords = await _episodeWords(input, ctx);
    if (o.pace !== DEFAULT_PACE) {
      if (o.pace === "tight") ctx.progress(0, "tightening pauses");
      clip.pieces = await pacePieces(o.pace, clip.pieces, {
        words: episodeWords,
        source,
        workdir: ctx.workdir,
        signal: ctx.signal,
      });
    }
    const duration = totalDuration(clip.pieces);
    const tmp = path.join(ctx.workdir, `clip-${clip.ref}.part.mp4`);
    const isAudio = media.kind === "audio" || (media.kind === undefined && !media.width);
    const key = `runs/${ctx.runId}/clip-${clip.ref}.mp4`;
    const wordsKey = `runs/${ctx.runId}/clip-${clip.ref}.words.json`;
    const bgKey = `runs/${ctx.runId}/clip-${clip.ref}.background.png`;
    const plan: RenderPlan = {
      source_key: sourceKey,
      pieces: clip.pieces,
      width,
      height,
      fps: o.fps,
      layout: isAudio ? "audio" : fit,
      colour,
      has_audio: media.has_audio !== false,
      ...(input.brand ? { brand: planBrand(input.brand) } : {}),
    };
    let background: string | undefined;

    // Everything is rendered in the workdir and moved into storage only once checked; on any
    // failure (ffmpeg, abort, a failed check) the partial file and anything written are removed.
    try {
      // The scene analysis (a 320 px decode of the pieces) runs beside reading the transcript.
      const words: TimedWord[] = retimeWords(episodeWords, clip.pieces);
      await Promise.all([
        (async () => {
          if (isAudio)
            background = await audioBackground(input, o, ctx, {
              source,
              media,
              width,
              height,
              colour,
              title: clip.title,
            });
          else if (fit === "crop" && o.crop_focus !== "center") {
            // A plan made while the episode was finished (plan-crops) saves the analysis when it fits.
            const want = { frame: o.aspect_ratio, threshold: o.scene_threshold, pieces: clip.pieces, layout: o.layout };
            plan.crop_plan = plannedScenes(clip.crop_plan, want);
            if (plan.crop_plan) plan.camera = plannedCamera(clip.crop_plan, o.layout);
            else {
              ctx.progress(1, "finding scenes");
              const got = await planFraming(source, clip.pieces, ctx, {
                threshold: o.scene_threshold,
                aspect: width / height,
                layout: o.layout,
              });
              plan.crop_plan = got.scenes;
              plan.camera = got.camera;
            }
          }
        })(),
      ]);
      await ctx.storage.write(
        wordsKey,
        JSON.stringify({
          ref: clip.ref,
          title: clip.title ?? null,
          hook: clip.hook ?? null,
          duration,
          pieces: clip.pieces,
          words,
        }),
      );
      const common = {
        ref: clip.ref,
        number: clip.number,
        title: clip.title,
        hook: clip.hook,
        start: clip.start,
        end: clip.end,
        pieces: clip.pieces,
        pace: o.pace,
        width,
        height,
        aspect_ratio: o.aspect_ratio,
        fit: isAudio ? "audio" : fit,
        words_key: wordsKey,
        ...(plan.crop_plan ? { crop_plan: plan.crop_plan } : {}),
        ...(plan.camera ? { camera: plan.camera } : {}),
      };
      if (!o.encode) {
        // caption-burn renders the clip from the source in one pass (docs/decisions.md).
        if (background) await ctx.storage.putFile(bgKey, background);
        ctx.progress(100, "planned");
        return {
          cut: { ...common, duration, render_plan: { ...plan, ...(background ? { background_key: bgKey } : {}) } },
        };
      }
      // A plain cut is caption- and brand-free: the brand is drawn by the render that burns the captions.
      const audioMeasure =
        plan.has_audio || isAudio
          ? await measureClipAudio(source, plan.pieces, { workdir: ctx.workdir, signal: ctx.signal })
          : undefined;
      const loudness = loudnessTarget(o.loudness, ctx.config?.render);
      const args = planArgs(
        { ...plan, brand: undefined },
        { source, background },
        { output: tmp, preset: o.preset, audioMeasure, loudness },
      );
      ctx.progress(2, "cutting");
      const got = await renderChecked(args, {
        stage: "cut",
        ref: clip.ref,
        width,
        height,
        duration,
        tolerance: 0.15,
        output: tmp,
        cwd: ctx.workdir,
        signal: ctx.signal,
        onProgress: (p) => ctx.progress(2 + p * 0.93, "cutting"),
      });
      await ctx.storage.putFile(key, tmp, { move: true });
      ctx.progress(100, "cut");
      return { cut: { ...common, key, duration: +got.duration.toFixed(3) } };
    } catch (err) {
      await Promise.allSettled([rm(tmp, { force: true }), ...[wordsKey, key, bgKey].map((k) => ctx.storage.remove(k))]);
      throw err;
    }
  },
});

/** The episode's words (source times), from the transcript when there is one. */
async function _episodeWords(input: StageInput, ctx: StageContext<unknown>): Promise<TimedWord[]> {
  const tKey: string | undefined = input.transcript?.key;
  if (!tKey || !(await ctx.storage.exists(tKey))) return [];
  const t = JSON.parse((await ctx.storage.read(tKey)).toString("utf8"));
  return Array.isArray(t.words) ? t.words : [];
}
