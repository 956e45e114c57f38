// The request schemas of the account API's episode and clip operations (bodies and queries), as
// TypeBox: plain JSON Schema at run time (request validation, the OpenAPI document, the MCP tools'
// arguments) and the handlers' body and query types at compile time (facade/registry.ts). The
// answers' schemas stay plain JSON Schema in _account-schemas.ts. Request bodies allow no extra
// properties.
import { Type, type Static, type TObject } from "@sinclair/typebox";
import { StringEnum } from "../../daemon/engine/stage.js";
import { emptyBody } from "../registry.js";

const Opt = Type.Optional;

/** The look fields of an export (POST /episodes/{id}/clips) and a restyle (PATCH /clips/{id}). */
const look = {
  style: Opt(Type.String({ minLength: 1, maxLength: 60, description: "A style id or name from GET /api/v1/styles" })),
  caption_size: Opt(
    StringEnum(["small", "medium", "large", "extra_large", "smaller", "bigger"], {
      description: "smaller/bigger step from the current size",
    }),
  ),
  caption_position: Opt(
    StringEnum(["top", "middle", "lower", "bottom", "up", "down"], {
      description: "up/down step from the current position",
    }),
  ),
  hook_title: Opt(
    Type.Union([Type.Boolean(), Type.String({ minLength: 1, maxLength: 120 })], {
      description: "Title box for the first seconds: true the clip's title, a string its words, false none",
    }),
  ),
  hook_title_anyway: Opt(
    Type.Boolean({
      description:
        "Extension: with hook_title true, draw the clip's title even when its words were heard with low " +
        "confidence (a clip's hook_title_dropped says when the box was left off for that); default false",
    }),
  ),
  fit: Opt(
    StringEnum(["fill", "whole", "crop"], {
      description:
        "fill (the default): fill the frame on the salient region; whole: the whole " +
        "picture on the background; crop: another name for fill",
    }),
  ),
  // Unsafe: a string that is one of the names or a colour, as `type` beside an `anyOf` of the two.
  background: Opt(
    Type.Unsafe<string>({
      type: "string",
      anyOf: [{ enum: ["blur", "black", "white", "gray", "navy", "dark"] }, { pattern: "^#[0-9a-fA-F]{6}$" }],
      description:
        "Around a whole picture (fit whole), and the gradient of audio clips; extension: also a colour as #RRGGBB",
    }),
  ),
  aspect_ratio: Opt(
    StringEnum(["9:16", "1:1", "4:5", "16:9"], {
      description:
        "Extension: the clip's shape, 9:16 (1080×1920, the default), 1:1 (1080×1080), " +
        "4:5 (1080×1350) or 16:9 (1920×1080); a change cuts the clip again",
    }),
  ),
  brand_kit: Opt(
    Type.Union([Type.String({ format: "uuid" }), Type.Null()], {
      description:
        "Extension: a brand kit of the account (GET /api/v1/brand-kits) whose font, " +
        "colours, logo, cards and cover art the clip takes; null: none. A change " +
        "cuts the clip again",
    }),
  ),
  censor: Opt(
    StringEnum(["off", "mask", "bleep"], {
      description:
        "Extension: listed profanity in the captions; off (the default), mask (drawn " +
        "as f***, in the captions endpoint too) or bleep (masked, and a 1 kHz tone " +
        "over the word in the audio)",
    }),
  ),
  emphasis: Opt(
    Type.Boolean({
      description: "Extension: numbers and the passage's key phrases in the accent colour (default true)",
    }),
  ),
  emoji: Opt(
    Type.Boolean({
      description: "Extension: a symbol after a key phrase, from the server's curated map (default false)",
    }),
  ),
  pace: Opt(
    StringEnum(["natural", "tight", "off"], {
      description:
        "Extension: which silences between words are cut out; natural (the default: pauses of 1.2 s or " +
        "more), tight (also every gap over 0.4 s shortened to about 0.15 s) or off (none); a change " +
        "cuts the clip again",
    }),
  ),
  layout: Opt(
    StringEnum(["auto", "follow", "split", "whole"], {
      description:
        "Extension: how the camera frames people with fit fill; auto (the default: chosen per clip from " +
        "the faces found), follow (the active speaker), split (two people stacked, side by side in 16:9) " +
        "or whole (the whole picture, for screen shares); a change cuts the clip again",
    }),
  ),
  loudness: Opt(
    Type.Union([Type.Number({ minimum: -40, maximum: -5 }), StringEnum(["off"])], {
      description:
        "Extension: integrated loudness of the clip's sound in LUFS (−40 to −5; the server's default, −14 " +
        "unless its operator set another, suits TikTok, Reels and Shorts), true peak held under −1 dBTP; " +
        "off: the sound as recorded. A change renders the clip again without a new cut",
    }),
  ),
};
/** The look fields of a request body, as validated. */
export type LookBody = Static<TObject<typeof look>>;

// Any string is taken as a ref, so an unknown one is reported by name ("unknown clip reference").
const clipItem = Type.Union(
  [
    Type.Integer({ minimum: 1 }),
    Type.String({ minLength: 1, maxLength: 64 }),
    Type.Object(
      {
        start: Type.Number({ minimum: 0, maximum: 86400 }),
        end: Type.Number({ minimum: 0, maximum: 86400 }),
      },
      {
        additionalProperties: false,
        description: "Extension: a clip of your own times (seconds in the episode), snapped outward to whole sentences",
      },
    ),
  ],
  { description: "A clip number or ref (extension: or { start, end } in seconds)" },
);
const targetSeconds = Type.Integer({
  minimum: 15,
  maximum: 180,
  description: "Wanted clip length in whole seconds; clips are within ±20%",
});
const seconds = (description: string) => Opt(Type.String({ pattern: "^\\d+(\\.\\d+)?$", description }));

export const R = {
  empty: emptyBody,
  episodeListQuery: Type.Object({
    cursor: Opt(Type.String({ maxLength: 100, description: "A next_cursor from the page before" })),
    limit: Opt(Type.String({ pattern: "^\\d{1,2}$", description: "Episodes a page, 1 to 50 (default 10)" })),
  }),
  episodeCreate: Type.Object(
    {
      name: Opt(Type.String({ minLength: 1, maxLength: 200 })),
      source_url: Opt(
        Type.String({
          format: "uri",
          pattern: "^https://",
          maxLength: 2000,
          description: "A direct https link to an audio or video file; without it, upload the file",
        }),
      ),
      file_name: Opt(
        Type.String({
          minLength: 1,
          maxLength: 255,
          description: "Name of the file to upload (its extension must be a media type)",
        }),
      ),
      content_type: Opt(StringEnum(["podcast", "stream", "other"])),
      target_seconds: Opt(targetSeconds),
      about: Opt(Type.String({ maxLength: 500, description: "Search brief for the first clip search" })),
    },
    { additionalProperties: false },
  ),
  exportBody: Type.Object(
    { clips: Type.Array(clipItem, { minItems: 1, maxItems: 10 }), ...look },
    { additionalProperties: false },
  ),
  searchBody: Type.Object(
    {
      about: Opt(
        Type.String({
          minLength: 1,
          maxLength: 500,
          description: "What to find clips about; without it the episode is searched again with its own options",
        }),
      ),
      target_seconds: Opt(targetSeconds),
    },
    { additionalProperties: false },
  ),
  restyleBody: Type.Object(
    {
      ...look,
      save_as_default: Opt(
        Type.Boolean({ description: "Also keep the clip's resulting look as the account's defaults for new clips" }),
      ),
    },
    { additionalProperties: false },
  ),
  captionsQuery: Type.Object({
    at: seconds("Seconds into the clip: the caption on screen then"),
    from: seconds("Captions ending after this second"),
    to: seconds("Captions starting before this second"),
    q: Opt(Type.String({ minLength: 1, maxLength: 200, description: "Text the caption contains (case ignored)" })),
    limit: Opt(Type.String({ pattern: "^\\d{1,3}$", description: "Most captions returned, 1–200 (default 40)" })),
  }),
};
