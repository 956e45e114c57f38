// JSON Schemas of the answers of the clip and job operations (export, job, restyle, captions,
// styles). Separate from the episode answers in _account-schemas.ts, which gathers both into S.
import type { JsonSchema } from "../../daemon/engine/stage.js";
import {
  hookTitleDropped,
  livemode,
  money,
  nullable,
  posterUrl,
  posterWebpUrl,
  queue,
  str,
} from "./_account-schema-parts.js";

export const exportAnswer: JsonSchema = {
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
};
export const job: JsonSchema = {
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
    hook_title_dropped: hookTitleDropped,
    error: { type: "object", required: ["code", "message"], properties: { code: str(), message: str() } },
    changes: { type: "array", items: str(), description: 'For a restyle, what it changed, as "field: from → to"' },
    charged_cents: { type: "integer" },
    created_at: str({ format: "date-time" }),
    finished_at: nullable(str({ format: "date-time" })),
    livemode,
  },
};
export const restyleAnswer: JsonSchema = {
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
};
export const captions: JsonSchema = {
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
};
export const styles: JsonSchema = {
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
};
