// JSON Schemas of the account API's episode, clip and job operations: one source for request
// validation, the OpenAPI document and the response checks in the API tests.
import type { JsonSchema } from "../../daemon/engine/stage.js";

// ---- schemas (request bodies allow no extra properties; answers are checked in the API tests) --

const str = (extra: Record<string, unknown> = {}): JsonSchema => ({ type: "string", ...extra });
const nullable = (s: JsonSchema): JsonSchema => ({ anyOf: [s, { type: "null" }] });
const livemode: JsonSchema = { type: "boolean", description: "false for test keys (sample data)" };
const look: Record<string, JsonSchema> = {
  style: str({ minLength: 1, maxLength: 60, description: "A style id or name from GET /api/v1/styles" }),
  caption_size: str({
    enum: ["small", "medium", "large", "extra_large", "smaller", "bigger"],
    description: "smaller/bigger step from the current size",
  }),
  caption_position: str({
    enum: ["top", "middle", "lower", "bottom", "up", "down"],
    description: "up/down step from the current position",
  }),
  hook_title: {
    anyOf: [{ type: "boolean" }, { type: "string", minLength: 1, maxLength: 120 }],
    description: "Title box for the first seconds: true the clip's title, a string its words, false none",
  },
  fit: str({
    enum: ["fill", "whole", "crop"],
    description:
      "fill (the default): fill the frame on the salient region; whole: the whole " +
      "picture on the background; crop: another name for fill",
  }),
  background: {
    type: "string",
    anyOf: [{ enum: ["blur", "black", "white", "gray", "navy", "dark"] }, { pattern: "^#[0-9a-fA-F]{6}$" }],
    description:
      "Around a whole picture (fit whole), and the gradient of audio clips; extension: also a colour as #RRGGBB",
  },
  aspect_ratio: str({
    enum: ["9:16", "1:1", "4:5", "16:9"],
    "x-extension": true,
    description:
      "Extension: the clip's shape, 9:16 (1080×1920, the default), 1:1 (1080×1080), " +
      "4:5 (1080×1350) or 16:9 (1920×1080); a change cuts the clip again",
  }),
  brand_kit: {
    anyOf: [str({ format: "uuid" }), { type: "null" }],
    "x-extension": true,
    description:
      "Extension: a brand kit of the account (GET /api/v1/brand-kits) whose font, " +
      "colours, logo, cards and cover art the clip takes; null: none. A change " +
      "cuts the clip again",
  },
  censor: str({
    enum: ["off", "mask", "bleep"],
    "x-extension": true,
    description:
      "Extension: listed profanity in the captions; off (the default), mask (drawn " +
      "as f***, in the captions endpoint too) or bleep (masked, and a 1 kHz tone " +
      "over the word in the audio)",
  }),
  emphasis: {
    type: "boolean",
    "x-extension": true,
    description: "Extension: numbers and the passage's key phrases in the accent colour (default true)",
  },
  emoji: {
    type: "boolean",
    "x-extension": true,
    description: "Extension: a symbol after a key phrase, from the server's curated map (default false)",
  },
  pace: str({
    enum: ["natural", "tight", "off"],
    "x-extension": true,
    description:
      "Extension: which silences between words are cut out; natural (the default: pauses of 1.2 s or " +
      "more), tight (also every gap over 0.4 s shortened to about 0.15 s) or off (none); a change " +
      "cuts the clip again",
  }),
  loudness: {
    anyOf: [
      { type: "number", minimum: -40, maximum: -5 },
      { type: "string", enum: ["off"] },
    ],
    "x-extension": true,
    description:
      "Extension: integrated loudness of the clip's sound in LUFS (−40 to −5; the server's default, −14 " +
      "unless its operator set another, suits TikTok, Reels and Shorts), true peak held under −1 dBTP; " +
      "off: the sound as recorded. A change renders the clip again without a new cut",
  },
};
// Any string is taken as a ref, so an unknown one is reported by name ("unknown clip reference").
const clipItem: JsonSchema = {
  anyOf: [
    { type: "integer", minimum: 1 },
    { type: "string", minLength: 1, maxLength: 64 },
    {
      type: "object",
      additionalProperties: false,
      required: ["start", "end"],
      "x-extension": true,
      description: "Extension: a clip of your own times (seconds in the episode), snapped outward to whole sentences",
      properties: {
        start: { type: "number", minimum: 0, maximum: 86400 },
        end: { type: "number", minimum: 0, maximum: 86400 },
      },
    },
  ],
  description: "A clip number or ref (extension: or { start, end } in seconds)",
};
const targetSeconds: JsonSchema = {
  type: "integer",
  minimum: 15,
  maximum: 180,
  description: "Wanted clip length in whole seconds; clips are within ±20%",
};
const money = { charged_cents: { type: "integer", minimum: 0, description: "What this call charged" } };
const progress: JsonSchema = {
  type: "object",
  required: ["stage", "percent"],
  properties: {
    stage: str(),
    percent: { type: "number", minimum: 0, maximum: 100 },
    note: nullable(str()),
    eta_seconds: nullable({
      type: "integer",
      minimum: 0,
      description: "Seconds the current stage still expects to take, from its measured speed; null without an estimate",
    }),
  },
};
const queue: JsonSchema = {
  anyOf: [
    {
      type: "object",
      required: ["position", "ahead"],
      properties: { position: { type: "integer", minimum: 1 }, ahead: { type: "integer", minimum: 0 } },
    },
    { type: "null" },
  ],
  "x-extension": true,
  description:
    "Extension: where the waiting step stands in the step queue shared by every account: `ahead` step " +
    "jobs a worker takes before it, `position` ahead + 1; null while its step runs or when nothing waits",
};
const subScore = (what: string): JsonSchema => ({
  type: "object",
  required: ["value", "reason"],
  properties: {
    value: { type: "integer", minimum: 0, maximum: 100 },
    reason: str({ description: `One line on the ${what}` }),
  },
});
const clipScores: JsonSchema = {
  type: "object",
  required: ["hook", "coherence", "payoff", "delivery"],
  description: "The score's four parts, each 0–100 with a one-line reason",
  properties: {
    hook: subScore("opening: a claim, a number, a promise or a tension"),
    coherence: subScore("passage standing alone: one speaker or exchange, its start and a finished last thought"),
    payoff: subScore("ending's payoff (a finding, advice, a twist) and the information carried"),
    delivery: subScore("delivery: pace, loudness and fillers"),
  },
};
const posterUrl = str({
  format: "uri",
  "x-extension": true,
  description:
    "Extension: signed link to the poster as JPEG (the frame at the hook's " +
    "first word with the title), valid as long as download_url",
});
const posterWebpUrl = str({ format: "uri", "x-extension": true, description: "Extension: the same poster as WebP" });
const clip: JsonSchema = {
  type: "object",
  required: ["number", "ref", "title", "hook", "start", "end", "length", "pieces", "cut_status", "export_status"],
  properties: {
    clip_id: str({ format: "uuid" }),
    number: { type: "integer" },
    ref: str(),
    title: str(),
    hook: str({ description: "The opening line that grabs attention" }),
    start: str({
      pattern: "^\\d{2,}:\\d{2}$",
      description: "Where the clip starts in the episode, mm:ss (minutes go past 59)",
    }),
    end: str({ pattern: "^\\d{2,}:\\d{2}$", description: "Where the clip ends in the episode, mm:ss" }),
    length: str({ pattern: "^\\d+:\\d{2}$", description: "The clip's length, m:ss" }),
    pieces: { type: "integer", minimum: 1, description: "How many parts of the episode the clip joins" },
    start_seconds: { type: "number" },
    end_seconds: { type: "number" },
    score: nullable({ type: "number" }),
    reasons: { type: "array", items: str() },
    scores: nullable(clipScores),
    about: nullable(str()),
    answers: {
      type: "array",
      items: str(),
      description:
        "The briefs (search `about`) this clip answers; a brief whose best answer " +
        "was already listed returns that clip, with its number and ref",
    },
    cut_status: str({ enum: ["not_cut", "cutting", "cut", "failed"] }),
    export_status: str({ enum: ["none", "rendering", "exported", "failed"] }),
    style: nullable(str()),
    download_url: str({ format: "uri" }),
    download_expires_at: str({ format: "date-time" }),
    poster_url: posterUrl,
    poster_webp_url: posterWebpUrl,
  },
};
const episode: JsonSchema = {
  type: "object",
  required: ["episode_id", "name", "status", "duration", "clips", "progress", "livemode"],
  properties: {
    episode_id: str({ format: "uuid" }),
    name: str(),
    status: str({ enum: ["awaiting_upload", "importing", "transcribing", "searching", "ready", "failed"] }),
    failure: {
      type: "object",
      required: ["code", "message"],
      properties: { code: str(), message: str(), stage: str() },
    },
    duration: nullable(str({ pattern: "^(\\d+:)?\\d{2}:\\d{2}$", description: "mm:ss (h:mm:ss from an hour)" })),
    duration_seconds: nullable({ type: "number" }),
    source: str({ enum: ["url", "upload"] }),
    content_type: str(),
    progress,
    queue,
    clips: { type: "array", items: clip },
    hint: str({ description: "Why a ready episode has no clips (only then)" }),
    next_steps: { type: "array", items: str(), description: "What to try for a ready episode without clips" },
    charged_cents: { type: "integer" },
    created_at: str({ format: "date-time" }),
    livemode,
  },
};
const paymentError: JsonSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "needed_cents", "credit_cents"],
      properties: {
        code: str({ enum: ["plan_or_credit_required", "credit_required", "plan_required", "balance_below_zero"] }),
        message: str(),
        needed_cents: { type: "integer" },
        credit_cents: { type: "integer" },
      },
    },
  },
};
export const S = {
  empty: { type: "object", additionalProperties: false, properties: {} } as JsonSchema,
  paymentError,
  episode,
  episodeList: {
    type: "object",
    required: ["episodes"],
    properties: {
      episodes: { type: "array", maxItems: 50, items: episode },
      next_cursor: nullable(str({ description: "Pass as cursor for the next page; null on the last page" })),
      message: str(),
      livemode,
    },
  } as JsonSchema,
  episodeListQuery: {
    type: "object",
    properties: {
      cursor: str({ maxLength: 100, description: "A next_cursor from the page before" }),
      limit: str({ pattern: "^\\d{1,2}$", description: "Episodes a page, 1 to 50 (default 10)" }),
    },
  } as JsonSchema,
  episodeCancelled: {
    type: "object",
    required: ["episode_id", "status", "charged_cents", "message", "livemode"],
    properties: {
      episode_id: str({ format: "uuid" }),
      status: str(),
      failure: { type: "object", properties: { code: str(), message: str() } },
      charged_cents: { type: "integer" },
      message: str(),
      livemode,
    },
  } as JsonSchema,
  episodeDeleted: {
    type: "object",
    required: ["episode_id", "deleted", "message", "livemode"],
    properties: {
      episode_id: str({ format: "uuid" }),
      deleted: { type: "boolean" },
      message: str(),
      livemode,
    },
  } as JsonSchema,
  episodeCreate: {
    type: "object",
    additionalProperties: false,
    properties: {
      name: str({ minLength: 1, maxLength: 200 }),
      source_url: str({
        format: "uri",
        pattern: "^https://",
        maxLength: 2000,
        description: "A direct https link to an audio or video file; without it, upload the file",
      }),
      file_name: str({
        minLength: 1,
        maxLength: 255,
        description: "Name of the file to upload (its extension must be a media type)",
      }),
      content_type: str({ enum: ["podcast", "stream", "other"] }),
      target_seconds: targetSeconds,
      about: str({ maxLength: 500, description: "Search brief for the first clip search" }),
    },
  } as JsonSchema,
  episodeCreated: {
    type: "object",
    required: ["episode_id", "status", "charged_cents", "livemode"],
    properties: {
      episode_id: str({ format: "uuid" }),
      status: str({ enum: ["awaiting_upload", "importing", "ready"] }),
      upload: {
        type: "object",
        required: ["method", "url", "headers", "expires_at"],
        properties: {
          method: { const: "PUT" },
          url: str({ format: "uri" }),
          headers: { type: "object", additionalProperties: str() },
          expires_at: str({ format: "date-time" }),
        },
      },
      ...money,
      message: str(),
      livemode,
    },
  } as JsonSchema,
  uploaded: {
    type: "object",
    required: ["episode_id", "status", "message"],
    properties: { episode_id: str({ format: "uuid" }), status: str(), message: str(), livemode },
  } as JsonSchema,
  exportBody: {
    type: "object",
    additionalProperties: false,
    required: ["clips"],
    properties: { clips: { type: "array", minItems: 1, maxItems: 10, items: clipItem }, ...look },
  } as JsonSchema,
  exportAnswer: {
    type: "object",
    required: ["episode_id", "jobs", "not_started", "charged_cents", "message"],
    properties: {
      episode_id: str({ format: "uuid" }),
      jobs: {
        type: "array",
        items: {
          type: "object",
          required: ["job_id", "clip_id", "kind", "status", "charged_cents"],
          properties: {
            job_id: str({ format: "uuid" }),
            clip_id: str({ format: "uuid" }),
            number: { type: "integer" },
            ref: str(),
            kind: str({ enum: ["cut", "render"] }),
            status: str({ enum: ["queued", "running", "completed", "failed"] }),
            charged_cents: { type: "integer" },
            existing: {
              type: "boolean",
              description: "The clip was made (or is being made) with this look already: its job, nothing charged",
            },
          },
        },
      },
      not_started: {
        type: "array",
        items: {
          type: "object",
          required: ["clip", "reason", "message"],
          properties: {
            clip: { anyOf: [{ type: "integer" }, str()] },
            reason: str(),
            message: str(),
            needed_cents: { type: "integer" },
          },
        },
      },
      ...money,
      message: str(),
      livemode,
    },
  } as JsonSchema,
  searchBody: {
    type: "object",
    additionalProperties: false,
    properties: {
      about: str({
        minLength: 1,
        maxLength: 500,
        description: "What to find clips about; without it the episode is searched again with its own options",
      }),
      target_seconds: targetSeconds,
    },
  } as JsonSchema,
  searchAnswer: {
    type: "object",
    required: ["episode_id", "status", "clips", "charged_cents", "message"],
    properties: {
      episode_id: str({ format: "uuid" }),
      status: str({ enum: ["searching", "done"] }),
      clips: { type: "array", items: clip },
      ...money,
      message: str(),
      livemode,
    },
  } as JsonSchema,
  job: {
    type: "object",
    required: ["job_id", "kind", "status", "clip_id", "title", "progress", "livemode"],
    properties: {
      job_id: str({ format: "uuid" }),
      kind: str({ enum: ["cut", "render"] }),
      status: str({ enum: ["queued", "running", "completed", "failed"] }),
      clip_id: str({ format: "uuid" }),
      episode_id: str({ format: "uuid" }),
      title: nullable(str()),
      progress: { type: "number", minimum: 0, maximum: 100 },
      eta_seconds: nullable({
        type: "integer",
        minimum: 0,
        description: "Seconds the running stage still expects to take; null without an estimate",
      }),
      queue,
      download_url: str({
        format: "uri",
        description: "Signed link to the MP4, when completed; valid 7 days, supports Range",
      }),
      download_expires_at: str({ format: "date-time" }),
      poster_url: posterUrl,
      poster_webp_url: posterWebpUrl,
      error: { type: "object", required: ["code", "message"], properties: { code: str(), message: str() } },
      changes: { type: "array", items: str(), description: 'For a restyle, what it changed, as "field: from → to"' },
      charged_cents: { type: "integer" },
      created_at: str({ format: "date-time" }),
      finished_at: nullable(str({ format: "date-time" })),
      livemode,
    },
  } as JsonSchema,
  restyleBody: {
    type: "object",
    additionalProperties: false,
    properties: {
      ...look,
      save_as_default: {
        type: "boolean",
        description: "Also keep the clip's resulting look as the account's defaults for new clips",
      },
    },
  } as JsonSchema,
  restyleAnswer: {
    type: "object",
    required: ["clip_id", "job_id", "status", "changes", "charged_cents", "message"],
    properties: {
      clip_id: str({ format: "uuid" }),
      job_id: str({ format: "uuid" }),
      status: str({ enum: ["queued", "running", "completed", "failed"] }),
      changes: {
        type: "array",
        items: str(),
        description:
          'Each field whose resolved value changed, as "caption_size: medium → large"; ' +
          "empty when nothing changed (nothing started)",
      },
      ...money,
      message: str(),
      livemode,
    },
  } as JsonSchema,
  captionsQuery: {
    type: "object",
    properties: {
      at: str({ pattern: "^\\d+(\\.\\d+)?$", description: "Seconds into the clip: the caption on screen then" }),
      from: str({ pattern: "^\\d+(\\.\\d+)?$", description: "Captions ending after this second" }),
      to: str({ pattern: "^\\d+(\\.\\d+)?$", description: "Captions starting before this second" }),
      q: str({ minLength: 1, maxLength: 200, description: "Text the caption contains (case ignored)" }),
      limit: str({ pattern: "^\\d{1,3}$", description: "Most captions returned, 1–200 (default 40)" }),
    },
  } as JsonSchema,
  captions: {
    type: "object",
    required: ["clip_id", "name", "total", "captions"],
    properties: {
      clip_id: str({ format: "uuid" }),
      name: str(),
      total: { type: "integer", minimum: 0 },
      captions: {
        type: "array",
        items: {
          type: "object",
          required: ["id", "start_seconds", "end_seconds", "speaker", "text"],
          properties: {
            id: str(),
            start_seconds: { type: "number" },
            end_seconds: { type: "number" },
            speaker: str(),
            text: str(),
          },
        },
      },
      livemode,
    },
  } as JsonSchema,
  styles: {
    type: "object",
    required: ["styles"],
    properties: {
      styles: {
        type: "array",
        items: {
          type: "object",
          required: ["id", "name", "description"],
          properties: { id: str(), name: str(), description: str() },
        },
      },
      livemode,
    },
  } as JsonSchema,
};
