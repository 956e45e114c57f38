/**
 * The `with:` options of cut and how fit + background resolve into a layout. Kept apart from the
 * stage's run so the schema (the docs' option tables are generated from it) reads on its own.
 */
import { Type } from "@sinclair/typebox";
import { Defaulted, StageError, StringEnum, type StageOptions } from "../../daemon/engine/stage.js";
import { DEFAULT_PRESET, X264_PRESETS } from "../../daemon/render/render.js";
import type { Fit } from "../../daemon/render/clip-graph.js";
import { LoudnessOption } from "../../daemon/render/loudness.js";
import { ASPECT_RATIOS, DEFAULT_ASPECT } from "../../daemon/render/aspect.js";
import { toHexColour } from "./background.js";
import { DEFAULT_PACE, PACES } from "../../daemon/render/pace.js";
import { LAYOUTS } from "../../daemon/render/camera.js";

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
    layout: Defaulted(
      StringEnum([...LAYOUTS], {
        description:
          "For `fill`: how the camera frames people (docs/clips.md). `auto` chooses per clip; `follow` keeps " +
          "the active speaker in frame; `split` stacks two people (side by side in 16:9); `whole` fits the " +
          "whole picture (screen shares, slides).",
      }),
      "auto",
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
        description: "x264 preset of the encode (default: the shipped preset, chosen by bench/render). CRF stays 22.",
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
export function resolveFit(o: CutOptions): { fit: Fit; colour: string } {
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
