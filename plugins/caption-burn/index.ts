/**
 * The caption-burn stage: captions (and the hook title) burned into a cut clip, or a planned cut
 * rendered with them in one pass, and the poster. Its options schema lives in options.ts and the
 * command line for a cut file in file-args.ts.
 */
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { defineStage, StageError, type StageWith } from "../../daemon/engine/stage.js";
import { stepFile } from "../../daemon/storage/storage.js";
import { buildAss, stepPosition, stepSize, type CaptionWord } from "../../daemon/render/ass.js";
import { escapeFilterValue, probeMedia, runFfmpeg } from "../../daemon/render/render.js";
import { planArgs, planDuration, type RenderPlan } from "../../daemon/render/clip-graph.js";
import { planFiles, renderChecked } from "../../daemon/render/clip-render.js";
import { cardTimes, withRunBrand } from "../../daemon/render/brand-graph.js";
import { loadStyles } from "../../daemon/render/styles.js";
import type { BrandSnapshot } from "../../daemon/render/brand.js";
import { loudnessTarget, measureClipAudio } from "../../daemon/render/loudness.js";
import { audioHook } from "../../daemon/render/audio-template.js";
import { decideHookTitle } from "../../daemon/render/confidence.js";
import { prepareCaptions } from "./prepare.js";
import { burnOverFileArgs } from "./file-args.js";
import { CaptionBurnOptionsSchema } from "./options.js";

export { CaptionBurnOptionsSchema } from "./options.js";

export default defineStage<StageWith<typeof CaptionBurnOptionsSchema>>({
  name: "caption-burn",
  needs: ["cut"],
  provides: ["render"],
  summary:
    "Burns styled captions (and an optional hook title) into a cut clip, or " +
    "renders a planned cut with them in one pass, with a poster image",
  options: CaptionBurnOptionsSchema,
  async run(input, ctx) {
    const o = ctx.options ?? {};
    const cut = input.cut;
    // A plan (cut told not to encode) is rendered from the source in one pass; a cut file (older
    // runs, pipelines whose cut encodes) gets its captions burned over it.
    const plan: RenderPlan | undefined = withRunBrand(cut?.render_plan, input.brand ?? undefined);
    const fileKey: string | undefined = plan ? plan.source_key : cut?.key;
    if (!fileKey || !(await ctx.storage.exists(fileKey))) {
      throw new StageError(
        "bad_input",
        `caption-burn: the ${plan ? "source" : "cut clip"} "${fileKey ?? "(none)"}" is not in storage`,
      );
    }
    const catalogue = loadStyles(ctx.config?.render?.styles_file);
    // A restyle starts from the previous render's choices, so "bigger"/"up" step from there.
    const prev = input.render ?? {};
    const styleId = o.style ?? prev.style ?? catalogue.default;
    const style = catalogue.styles.find((s) => s.id === styleId);
    if (!style) {
      throw new StageError(
        "bad_options",
        `caption-burn: unknown style "${styleId}"; known: ${catalogue.styles.map((s) => s.id).join(", ")}`,
      );
    }
    const size = stepSize(prev.caption_size ?? "medium", o.caption_size);
    const position = stepPosition(prev.caption_position ?? "bottom", o.caption_position);
    const highlight = o.highlight ?? prev.highlight ?? style.animation !== "none";

    const source = await stepFile(ctx, fileKey);
    const probe = plan ? undefined : await probeMedia(source, { signal: ctx.signal });
    const width = plan?.width ?? probe?.width ?? cut.width ?? 1080;
    const height = plan?.height ?? probe?.height ?? cut.height ?? 1920;
    const duration = Number(cut.duration ?? probe?.duration);

    let words: CaptionWord[] = [];
    let title: string | undefined = cut.title ?? undefined;
    if (cut.words_key && (await ctx.storage.exists(cut.words_key))) {
      const doc = JSON.parse((await ctx.storage.read(cut.words_key)).toString("utf8"));
      words = (Array.isArray(doc.words) ? doc.words : []).filter(
        (w: { text?: unknown; start: number; end: number } | null) => typeof w?.text === "string" && w.end > w.start,
      );
      title ??= doc.title ?? undefined;
    }
    const hookOpt = o.hook_title ?? prev.hook_title ?? false;
    const anyway = o.hook_title_anyway === true;
    const hook = decideHookTitle(hookOpt, title, words, ctx.config?.render?.hook_min_confidence, anyway);
    // An audio clip's still already carries the title: no second one, and no box on the cover.
    const audio = plan?.layout === "audio" ? audioHook(hook.text, title, width, height, plan.brand?.logo) : undefined;
    const hookTitle = audio ? audio.text : hook.text;
    const hookUntil = hookTitle?.trim() ? +Math.min(o.hook_seconds ?? 3, duration).toFixed(3) : undefined;
    // An audio clip's still shows the title whatever was heard: nothing was left off there.
    const dropped = audio ? {} : hook.off ? { hook_title_off: hook.off, hook_title_unsure: hook.unsure } : {};
    if (hook.off) ctx.log.info({ ref: cut.ref }, hook.off);

    // Clean captions and the brand kit (input.brand, a snapshot taken when the job was made).
    const choices = {
      censor: o.censor ?? prev.censor ?? "off",
      emphasis: o.emphasis ?? prev.emphasis ?? true,
      emoji: o.emoji ?? prev.emoji ?? false,
    };
    // A restyle keeps the level the clip was rendered at, as it keeps the other choices.
    const loudness = loudnessTarget(o.loudness ?? prev.loudness, ctx.config?.render);
    const brand: BrandSnapshot | undefined = input.brand ?? undefined;
    const prep = await prepareCaptions(ctx, { words, title, duration, style, brand, choices });
    const ass = buildAss(prep.words, {
      width,
      height,
      style: prep.style,
      size,
      position,
      highlight,
      hookTitle,
      hookSeconds: o.hook_seconds,
      hookBand: audio?.text ? { top: audio.band.y, height: audio.band.h } : undefined,
      duration,
    });
    await writeFile(path.join(ctx.workdir, "captions.ass"), ass);
    const filter = `ass=filename=captions.ass${prep.fontsDir ? `:fontsdir=${escapeFilterValue(prep.fontsDir)}` : ""}`;
    const ref = cut.ref ?? path.basename(fileKey).replace(/^clip-|\.mp4$/g, "");
    const tmp = path.join(ctx.workdir, "captioned.part.mp4");
    const base = `runs/${ctx.runId}/clip-${ref}-captioned`;
    const key = `${base}.mp4`;
    const thumbnailKey = `${base}.jpg`;
    const posterWebpKey = `${base}.webp`;
    const assKey = `${base}.ass`;
    let outDuration = duration;

    // Rendered in the workdir and moved into storage only once checked; on any failure (ffmpeg,
    // abort, a failed check) the partial file and whatever this attempt wrote are removed.
    try {
      const files = plan ? await planFiles(ctx, plan) : undefined;
      // The clip's own sound is measured first, so the one render can set its loudness (loudness.ts).
      const audioMeasure =
        plan && files && (plan.has_audio || plan.layout === "audio")
          ? await measureClipAudio(files.source, plan.pieces, { workdir: ctx.workdir, signal: ctx.signal })
          : undefined;
      const args = plan
        ? planArgs(plan, files!, {
            output: tmp,
            preset: o.preset,
            burn: filter,
            bleep: prep.bleep,
            audioMeasure,
            loudness,
            // An audio clip's hook box holds the waveform's band while it shows.
            ...(audio?.text ? { waveFrom: hookUntil } : {}),
          })
        : burnOverFileArgs(source, filter, {
            bleep: prep.bleep,
            audioCodec: probe?.audioCodec,
            preset: o.preset,
            output: tmp,
          });
      const note = plan ? "rendering" : "burning captions";
      ctx.progress(2, note);
      // A plan's output is cut to the planned length by ffmpeg itself, so it is held to the cut's 0.15 s.
      const got = await renderChecked(args, {
        stage: "caption-burn",
        ref,
        output: tmp,
        width,
        height,
        duration: plan ? planDuration(plan) : duration,
        tolerance: plan ? 0.15 : 0.1,
        cwd: ctx.workdir,
        signal: ctx.signal,
        onProgress: (p) => ctx.progress(2 + p * 0.9, note),
      });
      outDuration = got.duration;

      // The poster is taken while the hook title (if any) is up: it is the clip's cover.
      ctx.progress(94, "poster");
      const posterPng = path.join(ctx.workdir, "poster.png");
      // Times are on the clip's own timeline; a brand's intro card plays before it.
      const at =
        (plan ? cardTimes(plan.brand).before : 0) +
        Math.min(hookTitle ? 1 : Math.max(0, duration / 3), Math.max(0, duration - 0.1));
      await runFfmpeg(["-ss", at.toFixed(3), "-i", tmp, "-frames:v", "1", "-update", "1", posterPng], {
        signal: ctx.signal,
        cwd: ctx.workdir,
      });
      await ctx.storage.write(thumbnailKey, await sharp(posterPng).jpeg({ quality: 85, mozjpeg: true }).toBuffer());
      await ctx.storage.write(posterWebpKey, await sharp(posterPng).webp({ quality: 80 }).toBuffer());
      await ctx.storage.write(assKey, ass);
      await ctx.storage.putFile(key, tmp, { move: true });
    } catch (err) {
      await Promise.allSettled([
        rm(tmp, { force: true }),
        ...[key, thumbnailKey, posterWebpKey, assKey].map((k) => ctx.storage.remove(k)),
      ]);
      throw err;
    }
    ctx.progress(100, "captioned");
    return {
      render: {
        key,
        ref,
        style: style.id,
        caption_size: size,
        caption_position: position,
        highlight,
        hook_title: hookOpt,
        hook_title_anyway: anyway,
        // Until when (the clip's own seconds) the hook box is up; the poster of an audio clip is taken after it.
        ...(hookUntil !== undefined ? { hook_until: hookUntil } : {}),
        // A box asked for and not drawn, and why: the clip's answer shows it (hook_title_dropped).
        ...dropped,
        ...choices,
        loudness: loudness === "off" ? "off" : loudness.lufs,
        duration: +outDuration.toFixed(3),
        width,
        height,
        thumbnail_key: thumbnailKey,
        poster_webp_key: posterWebpKey,
        ass_key: assKey,
      },
    };
  },
});
