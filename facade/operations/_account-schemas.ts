// JSON Schemas of the answers of the account API's episode, clip and job operations: the OpenAPI
// document and the response checks in the API tests. Their request schemas are TypeBox, in
// _account-requests.ts.
import type { JsonSchema } from "../../daemon/engine/stage.js";

const str = (extra: Record<string, unknown> = {}): JsonSchema => ({ type: "string", ...extra });
const nullable = (s: JsonSchema): JsonSchema => ({ anyOf: [s, { type: "null" }] });
const livemode: JsonSchema = { type: "boolean", description: "false for test keys (sample data)" };
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
