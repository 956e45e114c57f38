/**
 * The configuration blocks for media: rendering, brand kits, outgoing requests to user URLs and
 * webhooks.
 * schema.ts assembles them into the one ConfigSchema.
 */
import { Type } from "@sinclair/typebox";
import { StringEnum } from "../daemon/engine/stage.js";
import { ENCODER_SETTINGS } from "../daemon/render/encoder-settings.js";
import { Key, Opt, Block, Str, Int, Num, Bool } from "./keys.js";

export const mediaBlocks = {
  render: Block("Clip rendering.", {
    loudness_lufs: Key(
      Type.Union([Num({ minimum: -40, maximum: -5 }), Type.Literal("off")]),
      -14,
      "Integrated loudness every render is normalised to (LUFS, EBU R128), or `off`; an export's `loudness` wins.",
    ),
    true_peak_db: Key(Num({ minimum: -9, maximum: 0 }), -1, "True-peak ceiling of every render's sound (dBTP)."),
    render_top: Key(
      Int({ minimum: 0, maximum: 10 }),
      3,
      "Clips rendered for each episode entering by CLI or watch folder.",
    ),
    fonts_dir: Opt(Str(), "system fonts", "Folder of fonts for burned-in captions (libass is pointed at it)."),
    styles_file: Opt(Str(), "config/styles.yaml", "Caption style catalogue that replaces the built-in one."),
    censor_words: Opt(
      Str(),
      "config/words/profanity.txt",
      "Word list that `censor: mask` and `bleep` hide in captions (one word a " +
        "line, `*` for a prefix; see the built-in list).",
    ),
    censor_low_confidence: Key(
      Bool(),
      false,
      "Also hide listed words the speech engine heard with confidence below 0.5 (by default they are " +
        "left as heard: more likely a misheard ordinary word).",
    ),
    hook_min_confidence: Key(
      Num({ minimum: 0, maximum: 1 }),
      0.5,
      "`hook_title: true` draws no box when a word of the clip's title was heard below this confidence " +
        "(0 draws every title); typed hook words are always drawn.",
    ),
    emoji_file: Opt(
      Str(),
      "config/emoji.yaml",
      "Keyword → symbol map for captions' `emoji` option (libass draws outline glyphs only: see docs/clips.md).",
    ),
    encoder: Key(
      StringEnum(ENCODER_SETTINGS),
      "auto",
      "H.264 encoder of rendered clips. `auto`: a hardware encoder (h264_nvenc, " +
        "h264_qsv) when ffmpeg lists it and a one-second probe encode succeeds, " +
        "else libx264. `libx264` forces software; a hardware name forces that one " +
        "(h264_vaapi only so, as the render graphs do not yet upload frames to " +
        "the GPU), and the worker refuses to start when it cannot encode. `clipd " +
        "doctor` says which is used and why.",
    ),
    concurrency: Opt(
      Int({ minimum: 1, maximum: 64 }),
      "one per 4 cores, at least 1",
      "Clip encodes one worker process runs at once; more wait their turn, each " +
        "holding its step's queue slot. On 2 cores 1 has the first clip of a request " +
        "ready in about half the time of 2, for 10% fewer clips per minute (docs/benchmarks.md, render).",
    ),
  }),
  brand: Block(
    "Brand kits (fonts, colours, logo, intro/outro cards and cover art an account " +
      "saves for its clips) and episodes' cover art; see docs/clips.md.",
    {
      kits_per_account: Key(
        Int({ minimum: 0, maximum: 1000 }),
        20,
        "Brand kits one account may keep; creating one more is refused (409 limit_reached).",
      ),
      font_max_bytes: Key(Int({ minimum: 1024 }), 4194304, "Largest uploaded font (TTF or OTF), bytes (4 MB)."),
      image_max_bytes: Key(
        Int({ minimum: 1024 }),
        5242880,
        "Largest uploaded logo or cover art (PNG, SVG, JPEG, WebP; also fetched by link), bytes (5 MB).",
      ),
      image_max_pixels: Key(
        Int({ minimum: 1024 }),
        40000000,
        "Largest logo or cover art in pixels (width × height), so a small file cannot unpack into a huge picture.",
      ),
      decode_deadline_ms: Key(
        Int({ minimum: 500, maximum: 600000 }),
        10000,
        "Most processor time an uploaded font, logo or cover art may take to open, in ms; each opens in a " +
          "child process, killed at this deadline (or at three times it in wall time), and the upload is " +
          "refused with too_complex.",
      ),
      decode_memory_mb: Key(
        Int({ minimum: 64, maximum: 16384 }),
        512,
        "Most memory the child process opening one uploaded font or image may hold, in MB; past it the " +
          "child is killed and the upload refused with too_complex.",
      ),
    },
  ),
  network: Block("Outgoing requests to user-given URLs.", {
    allow_loopback: Key(
      Bool(),
      false,
      "Tests only: allow loopback addresses for user-given URLs. Every other private range stays refused.",
    ),
    extra_ca: Key(Str(), "", "Tests only: extra CA certificate file trusted for outgoing https."),
  }),
  webhooks: Block("Webhook deliveries.", {
    time_scale: Key(
      Num({ exclusiveMinimum: 0, maximum: 1 }),
      1,
      "Multiplies every retry delay (1, 5, 30, 60 minutes, … 25 hours in all) " +
        "and the switch-off period. Tests only: a small value runs the schedule in seconds.",
    ),
    timeout_ms: Key(
      Int({ minimum: 100, maximum: 60000 }),
      10000,
      "A delivery succeeds only on a 2xx answer within this many milliseconds.",
    ),
    disable_after_hours: Key(
      Num({ exclusiveMinimum: 0 }),
      72,
      "An address whose deliveries have failed this many hours in a row is switched off (enabled: false).",
    ),
  }),
};
