import { rm } from "node:fs/promises";
import path from "node:path";
import { ffmpegPath, runTool, SAFE_INPUT_ARGS } from "../../daemon/render/ffmpeg.js";
import { Type } from "@sinclair/typebox";
import {
  Defaulted,
  defineStage,
  resolveOptions,
  StageError,
  StringEnum,
  type StageContext,
  type StageInput,
  type StageOptions,
} from "../../daemon/engine/stage.js";
import { stepFile } from "../../daemon/storage/storage.js";
import { DEFAULT_PRESET, X264_PRESETS } from "../../daemon/render/render.js";
import { planArgs, type Fit, type RenderPlan } from "../../daemon/render/clip-graph.js";
import { LoudnessOption, loudnessTarget, measureClipAudio } from "../../daemon/render/loudness.js";
import { renderChecked } from "../../daemon/render/clip-render.js";
import { ASPECT_RATIOS, DEFAULT_ASPECT, frameSize } from "../../daemon/render/aspect.js";
import { planBrand } from "../../daemon/render/brand-graph.js";
import type { BrandSnapshot } from "../../daemon/render/brand.js";
import { makeBackground, toHexColour } from "./background.js";
import { decodeUntrusted } from "../../daemon/render/decode-jail.js";
import { cropPlan } from "./focus.js";
import { plannedScenes } from "./planned.js";
import { retimeWords, selectClip, totalDuration, type TimedWord } from "./clip.js";
import { DEFAULT_PACE, pacePieces, PACES } from "../../daemon/render/pace.js";

/** The `with:` options of cut: the one place their limits, defaults and descriptions are written. */
export const CutOptionsSchema = Type.Object(
  {
    aspect_ratio: Defaulted(
      StringEnum([...ASPECT_RATIOS], {
        description:
          "Shape of the clip: `9:16` (1080×1920), `1:1` (1080×1080), `4:5` (1080×1350) " +
          "or `16:9` (1920×1080) at `width` 1080.",
      }),
      DEFAULT_ASPECT,
    ),
    width: Defaulted(
      Type.Integer({
        minimum: 360,
        maximum: 2160,
        multipleOf: 2,
        description:
          "The frame's short side (the width of 9:16, 1:1 and 4:5; the height of " +
          "16:9); the other side follows `aspect_ratio`.",
      }),
      1080,
    ),
    fit: Defaulted(
      StringEnum(["fill", "whole", "crop", "blur", "pad"], {
        description:
          "`fill` (older name `crop`): fill the frame, cropped per scene on the salient " +
          "region. `whole`: the whole picture on `background`. `blur` and `pad` are " +
          "the older names of `whole` on a blur and on a colour.",
      }),
      "fill",
    ),
    background: Defaulted(
      Type.String({
        pattern: "^(#[0-9a-fA-F]{6}|[a-z]+)$",
        description:
          "With `fit: whole` (or `pad`): `blur` (the picture itself, blurred and " +
          "darkened, fills the frame), `black`, `#RRGGBB` or a colour name (`white`, " +
          "`gray`, `navy`, …). An unknown name fails with `bad_options` before rendering. " +
          "Also the gradient colour of audio clips.",
      }),
      "#1f2937",
    ),
    background_image: Type.Optional(
      Type.String({
        maxLength: 500,
        description: "Storage key of cover art for audio clips (also `input.cover.key`).",
      }),
    ),
    fps: Defaulted(Type.Integer({ minimum: 10, maximum: 60, description: "Output frame rate." }), 30),
    crop_focus: Defaulted(
      StringEnum(["attention", "center"], {
        description: "For `fill`: per-scene salient region (below), or `center` (one centred crop).",
      }),
      "attention",
    ),
    scene_threshold: Defaulted(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1,
        description: "ffmpeg scene score above which a frame starts a new crop scene.",
      }),
      0.3,
    ),
    loudness: LoudnessOption,
    preset: Defaulted(
      StringEnum(X264_PRESETS, {
        description: "x264 preset of the encode (default: the shipped preset, chosen by bench/render). CRF stays 20.",
      }),
      DEFAULT_PRESET,
    ),
    pace: Defaulted(
      StringEnum([...PACES], {
        description:
          "Which silences between words are left out: `natural` (pauses of 1.2 s or more, as the clip " +
          "was found), `tight` (also every gap over 0.4 s shortened to about 0.15 s, each cut " +
          "confirmed silent in the audio) or `off` (nothing: one piece from the clip's start to its end).",
      }),
      DEFAULT_PACE,
    ),
    clip_number: Type.Optional(
      Type.Integer({ minimum: 1, description: "Which clip of `input.clips` to cut (its `number`)." }),
    ),
    clip_ref: Type.Optional(
      Type.String({ maxLength: 40, description: "Which clip of `input.clips` to cut (its `ref`)." }),
    ),
    encode: Defaulted(
      Type.Boolean({
        description:
          "`false`: encode nothing; hand caption-burn a render plan (pieces, crop " +
          "per scene, layout) so it renders the finished clip from the source in " +
          "one pass. `true`: a caption-free MP4 (`cut.key`).",
      }),
      true,
    ),
  },
  { additionalProperties: false },
);
export type CutOptions = StageOptions<typeof CutOptionsSchema>;

/** Resolves fit + background into one layout and a pad colour ("blur" is a layout, not a colour). */
function _fit(o: CutOptions): { fit: Fit; colour: string } {
  const bg = o.background;
  const colour = bg === "blur" ? (CutOptionsSchema.properties.background.default as string) : toHexColour(bg);
  if (!colour)
    throw new StageError("bad_options", `cut: background "${bg}" is not "blur", #RRGGBB or a known colour name`);
  switch (o.fit) {
    case "crop":
    case "fill":
      return { fit: "crop", colour };
    case "whole":
    case "pad":
      return { fit: bg === "blur" ? "blur" : "pad", colour };
    default:
      return { fit: "blur", colour };
  }
}

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
    const { fit, colour } = _fit(o);
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
            background = await _background(input, o, ctx, { source, media, width, height, colour, title: clip.title });
          else if (fit === "crop" && o.crop_focus !== "center") {
            // A plan made while the episode was finished (plan-crops) saves the analysis when it fits.
            plan.crop_plan = plannedScenes(clip.crop_plan, {
              frame: o.aspect_ratio,
              threshold: o.scene_threshold,
              pieces: clip.pieces,
            });
            if (!plan.crop_plan) {
              ctx.progress(1, "finding scenes");
              plan.crop_plan = await cropPlan(source, clip.pieces, {
                signal: ctx.signal,
                threshold: o.scene_threshold,
                aspect: width / height,
              });
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

/**
 * The still of an audio clip: cover art (given, the episode's or the kit's, or embedded in the file) or a gradient,
 * with the show's name and the title in the brand's colours.
 */
async function _background(
  input: StageInput,
  o: CutOptions,
  ctx: StageContext<unknown>,
  // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
  b: { source: string; media: any; width: number; height: number; colour: string; title?: string },
): Promise<string> {
  const brand: BrandSnapshot | undefined = input.brand ?? undefined;
  const imageKey: string | undefined = o.background_image ?? input.cover?.key ?? brand?.cover_key;
  let image = imageKey && (await ctx.storage.exists(imageKey)) ? await stepFile(ctx, imageKey) : undefined;
  // An episode file with embedded cover art (an MP3's picture) lends it to the background.
  const coverStream = (b.media.streams ?? []).find((st: { cover_art?: boolean }) => st.cover_art) as
    | { index: number }
    | undefined;
  if (!image && coverStream) image = await extractCover(b.source, coverStream.index, ctx.workdir, ctx.signal);
  if (image) image = await safeCover(image, ctx.workdir);
  return makeBackground(path.join(ctx.workdir, "background.png"), {
    width: b.width,
    height: b.height,
    colour: brand?.colours?.background ?? b.colour,
    title: b.title,
    image,
    showName: brand?.show_name,
    textColour: brand?.colours?.primary,
    accent: brand?.colours?.accent,
  });
}

/**
 * The cover art redrawn by the decoder child into a PNG of at most COVER_SIDE a side, so the sharp
 * work of the background (blur, attention crop) only ever sees a small picture clipd drew: art
 * embedded in an episode's file was never checked, and even checked art may be 40 MP. A cover the
 * child refuses or cannot read within its deadline is left out (the gradient stands in).
 */
async function safeCover(image: string, workdir: string): Promise<string | undefined> {
  const out = path.join(workdir, "cover-safe.png");
  const answer = await decodeUntrusted(
    { op: "raster", path: image, pixels: COVER_MAX_PIXELS, fit: COVER_SIDE, out },
    "cover",
  ).catch(() => undefined);
  return answer?.ok ? out : undefined;
}
const COVER_SIDE = 2048;
const COVER_MAX_PIXELS = 40_000_000;

/** Writes a file's embedded picture to the workdir; undefined when ffmpeg cannot read it. */
async function extractCover(
  source: string,
  streamIndex: number,
  workdir: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  const out = path.join(workdir, "cover.png");
  const r = await runTool(
    ffmpegPath(),
    [
      "-hide_banner",
      "-nostdin",
      "-y",
      ...SAFE_INPUT_ARGS,
      "-i",
      source,
      "-map",
      `0:${streamIndex}`,
      "-frames:v",
      "1",
      out,
    ],
    { signal },
  );
  return r.code === 0 ? out : undefined;
}
