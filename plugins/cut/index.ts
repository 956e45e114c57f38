import { rm } from "node:fs/promises";
import path from "node:path";
import { ffmpegPath, runTool, SAFE_INPUT_ARGS } from "../../daemon/kit/ffmpeg.js";
import { Type } from "@sinclair/typebox";
import { Defaulted, defineStage, isStageError, resolveOptions, StageError, StringEnum, type StageOptions } from "../../daemon/engine/stage.js";
import { stepFile } from "../../daemon/kit/storage.js";
import { FfmpegError, probeMedia, runFfmpeg, X264_PRESETS } from "../../daemon/kit/render.js";
import { makeBackground, toHexColour } from "./background.js";
import { cropPlan, type CropScene } from "./focus.js";
import { retimeWords, selectClip, totalDuration, type TimedWord } from "./clip.js";
import { audioCutArgs, videoCutArgs, type Fit } from "./graph.js";

/** The `with:` options of cut: the one place their limits, defaults and descriptions are written. */
export const CutOptionsSchema = Type.Object(
  {
    width: Defaulted(Type.Integer({ minimum: 360, maximum: 2160, multipleOf: 2, description: "Output width; the height is width × 16/9." }), 1080),
    fit: Defaulted(
      StringEnum(["fill", "whole", "crop", "blur", "pad"], {
        description:
          "`fill` (older name `crop`): fill the frame, cropped per scene on the salient region. `whole`: the whole picture on `background`. `blur` and `pad` are the older names of `whole` on a blur and on a colour.",
      }),
      "fill",
    ),
    background: Defaulted(
      Type.String({
        pattern: "^(#[0-9a-fA-F]{6}|[a-z]+)$",
        description:
          "With `fit: whole` (or `pad`): `blur` (the picture itself, blurred and darkened, fills the frame), `black`, `#RRGGBB` or a colour name (`white`, `gray`, `navy`, …). An unknown name fails with `bad_options` before rendering. Also the gradient colour of audio clips.",
      }),
      "#1f2937",
    ),
    background_image: Type.Optional(Type.String({ maxLength: 500, description: "Storage key of cover art for audio clips (also `input.cover.key`)." })),
    fps: Defaulted(Type.Integer({ minimum: 10, maximum: 60, description: "Output frame rate." }), 30),
    crop_focus: Defaulted(StringEnum(["attention", "center"], { description: "For `fill`: per-scene salient region (below), or `center` (one centred crop)." }), "attention"),
    scene_threshold: Defaulted(Type.Number({ exclusiveMinimum: 0, maximum: 1, description: "ffmpeg scene score above which a frame starts a new crop scene." }), 0.3),
    preset: Defaulted(StringEnum(X264_PRESETS, { description: "x264 preset of the encode. CRF stays 20." }), "veryfast"),
    clip_number: Type.Optional(Type.Integer({ minimum: 1, description: "Which clip of `input.clips` to cut (its `number`)." })),
    clip_ref: Type.Optional(Type.String({ maxLength: 40, description: "Which clip of `input.clips` to cut (its `ref`)." })),
  },
  { additionalProperties: false },
);
export type CutOptions = StageOptions<typeof CutOptionsSchema>;

/** Resolves fit + background into one layout and a pad colour ("blur" is a layout, not a colour). */
function _fit(o: CutOptions): { fit: Fit; colour: string } {
  const bg = o.background;
  const colour = bg === "blur" ? (CutOptionsSchema.properties.background.default as string) : toHexColour(bg);
  if (!colour) throw new StageError("bad_options", `cut: background "${bg}" is not "blur", #RRGGBB or a known colour name`);
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
  summary: "Cuts a clip's pieces frame-accurately from the source into a vertical 9:16 MP4",
  options: CutOptionsSchema,
  async run(input, ctx) {
    const o = resolveOptions(CutOptionsSchema, ctx.options);
    const sourceKey: string | undefined = input.source?.key;
    if (!sourceKey || !(await ctx.storage.exists(sourceKey))) {
      throw new StageError("bad_input", `cut: the source file "${sourceKey ?? "(none)"}" is not in storage`);
    }
    const media = input.media ?? {};
    const clip = selectClip(input, o, media.duration);
    const duration = totalDuration(clip.pieces);
    const width = o.width;
    const height = Math.round((width * 16) / 9 / 2) * 2;
    const fps = o.fps;
    const { fit, colour } = _fit(o);
    const preset = o.preset;
    const source = await stepFile(ctx, sourceKey);
    const tmp = path.join(ctx.workdir, `clip-${clip.ref}.part.mp4`);
    const isAudio = media.kind === "audio" || (media.kind === undefined && !media.width);
    const key = `runs/${ctx.runId}/clip-${clip.ref}.mp4`;
    const wordsKey = `runs/${ctx.runId}/clip-${clip.ref}.words.json`;
    let plan: CropScene[] | undefined;
    let got: Awaited<ReturnType<typeof probeMedia>>;
    let words: TimedWord[] = [];

    // Everything is rendered in the workdir and moved into storage only once checked; on any
    // failure (ffmpeg, abort, a failed check) the partial file and anything written are removed.
    try {
      let args: string[];
      if (isAudio) {
        const imageKey: string | undefined = o.background_image ?? input.cover?.key;
        let image = imageKey && (await ctx.storage.exists(imageKey)) ? await stepFile(ctx, imageKey) : undefined;
        // An episode file with embedded cover art (an MP3's picture) lends it to the background.
        const coverStream = (media.streams ?? []).find((st: { cover_art?: boolean }) => st.cover_art) as { index: number } | undefined;
        if (!image && coverStream) image = await extractCover(source, coverStream.index, ctx.workdir, ctx.signal);
        const bg = await makeBackground(path.join(ctx.workdir, "background.png"), { width, height, colour, title: clip.title, image });
        args = audioCutArgs(source, clip.pieces, { width, height, fps, background: bg, waveColour: "white@0.85", output: tmp, preset });
      } else {
        if (fit === "crop" && o.crop_focus !== "center") {
          ctx.progress(1, "finding scenes");
          plan = await cropPlan(source, clip.pieces, { signal: ctx.signal, threshold: o.scene_threshold });
        }
        args = videoCutArgs(source, clip.pieces, {
          width, height, fps, fit, background: colour, hasAudio: media.has_audio !== false, output: tmp, plan, preset,
        });
      }
      ctx.progress(2, "cutting");
      try {
        await runFfmpeg(args, { signal: ctx.signal, duration, cwd: ctx.workdir, onProgress: (p) => ctx.progress(2 + p * 0.93, "cutting") });
      } catch (err) {
        if (ctx.signal.aborted || isStageError(err)) throw err; // an abort, or tool_missing
        throw new StageError("render_failed", `cut: ffmpeg failed on clip ${clip.ref}: ${(err as Error).message}`, {
          retryable: !(err instanceof FfmpegError) || err.exitCode === null,
          cause: err,
        });
      }
      got = await probeMedia(tmp, { signal: ctx.signal });
      if (got.width !== width || got.height !== height || got.videoCodec !== "h264" || got.audioCodec !== "aac" || Math.abs(got.duration - duration) > 0.15) {
        throw new StageError(
          "render_failed",
          `cut: output check failed for clip ${clip.ref}: got ${got.width}x${got.height} ${got.videoCodec}/${got.audioCodec} ${got.duration.toFixed(2)} s, wanted ${width}x${height} h264/aac ${duration.toFixed(2)} s`,
          { retryable: true },
        );
      }

      const tKey: string | undefined = input.transcript?.key;
      if (tKey && (await ctx.storage.exists(tKey))) {
        const t = JSON.parse((await ctx.storage.read(tKey)).toString("utf8"));
        words = retimeWords(Array.isArray(t.words) ? t.words : [], clip.pieces);
      }
      await ctx.storage.write(
        wordsKey,
        JSON.stringify({ ref: clip.ref, title: clip.title ?? null, hook: clip.hook ?? null, duration, pieces: clip.pieces, words }),
      );
      await ctx.storage.putFile(key, tmp, { move: true });
    } catch (err) {
      await Promise.allSettled([rm(tmp, { force: true }), ctx.storage.remove(wordsKey), ctx.storage.remove(key)]);
      throw err;
    }
    ctx.progress(100, "cut");
    return {
      cut: {
        key, ref: clip.ref, number: clip.number, title: clip.title, hook: clip.hook,
        start: clip.start, end: clip.end, duration: +got.duration.toFixed(3), pieces: clip.pieces,
        width, height, fit: isAudio ? "audio" : fit, words_key: wordsKey,
        ...(plan ? { crop_plan: plan } : {}),
      },
    };
  },
});

/** Writes a file's embedded picture to the workdir; undefined when ffmpeg cannot read it. */
async function extractCover(source: string, streamIndex: number, workdir: string, signal: AbortSignal): Promise<string | undefined> {
  const out = path.join(workdir, "cover.png");
  const r = await runTool(ffmpegPath(), ["-hide_banner", "-nostdin", "-y", ...SAFE_INPUT_ARGS, "-i", source, "-map", `0:${streamIndex}`, "-frames:v", "1", out], { signal });
  return r.code === 0 ? out : undefined;
}
