/**
 * caption-burn's options schema. Apart from the stage's run (index.ts, which re-exports it) so the
 * schema the docs' option tables are generated from reads on its own.
 */
import { Type } from "@sinclair/typebox";
import { Defaulted, StringEnum } from "../../daemon/engine/stage.js";
import { DEFAULT_PRESET, X264_PRESETS } from "../../daemon/render/render.js";
import { CENSOR_MODES } from "../../daemon/render/censor.js";
import { LoudnessOption } from "../../daemon/render/loudness.js";

/**
 * The `with:` options of caption-burn: the one place their limits, defaults and descriptions are
 * written. Style, size, position and highlight have no schema default: a restyle starts from the
 * previous render's choices (`input.render`), and only then from the defaults named here.
 */
export const CaptionBurnOptionsSchema = Type.Object(
  {
    style: Type.Optional(
      Type.String({
        pattern: "^[a-z0-9-]+$",
        maxLength: 40,
        "x-default": "`bold-punch`",
        description: "Id from `config/styles.yaml`.",
      }),
    ),
    caption_size: Type.Optional(
      StringEnum(["small", "medium", "large", "extra_large", "smaller", "bigger"], {
        "x-default": "`medium`",
        description: "`small`, `medium`, `large`, `extra_large`; `smaller`/`bigger` step from the previous render.",
      }),
    ),
    caption_position: Type.Optional(
      StringEnum(["top", "middle", "lower", "bottom", "up", "down"], {
        "x-default": "`bottom`",
        description: "`top`, `middle`, `lower`, `bottom`; `up`/`down` step from the previous render.",
      }),
    ),
    hook_title: Defaulted(
      Type.Union([Type.Boolean(), Type.String({ maxLength: 120 })], {
        description: "Title box at the top for the first seconds: `true` = clip title, a string = those words.",
      }),
      false,
    ),
    hook_title_anyway: Defaulted(
      Type.Boolean({
        description:
          "With `hook_title: true`, draw the clip's title even when its words were heard with low confidence " +
          "(below `render.hook_min_confidence`), as heard.",
      }),
      false,
    ),
    highlight: Type.Optional(
      Type.Boolean({
        "x-default": "on for animated styles",
        description: "Word-by-word animation of the style (`highlight`, `pop` or `karaoke`).",
      }),
    ),
    censor: Type.Optional(
      StringEnum(CENSOR_MODES, {
        "x-default": "`off`",
        description:
          "Words of the list in config/words/ (render.censor_words): `mask` draws " +
          "them as `f***`, `bleep` also mutes them under a 1 kHz tone.",
      }),
    ),
    emphasis: Type.Optional(
      Type.Boolean({
        "x-default": "`true`",
        description: "Numbers and the passage's key phrases in the style's highlight colour (a brand kit's accent).",
      }),
    ),
    emoji: Type.Optional(
      Type.Boolean({
        "x-default": "`false`",
        description: "A symbol from config/emoji.yaml after a key phrase (with emphasis on).",
      }),
    ),
    hook_seconds: Defaulted(
      Type.Number({ minimum: 0.5, maximum: 10, description: "How long the hook title stays." }),
      3,
    ),
    loudness: LoudnessOption,
    preset: Defaulted(
      StringEnum(X264_PRESETS, {
        description: "x264 preset of the encode (default: the shipped preset, chosen by bench/render). CRF stays 22.",
      }),
      DEFAULT_PRESET,
    ),
  },
  { additionalProperties: false },
);
