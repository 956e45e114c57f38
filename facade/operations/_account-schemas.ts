// JSON Schemas of the answers of the account API's episode, clip and job operations: the OpenAPI
// document and the response checks in the API tests. Their request schemas are TypeBox, in
// _account-requests.ts. This module holds the episode answers and gathers every answer into S; the
// shared building blocks are in _account-schema-parts.ts, the clip and job answers in
// _clip-answer-schemas.ts.
import type { JsonSchema } from "../../daemon/engine/stage.js";
import { clip, episode, livemode, money, nullable, paymentError, str } from "./_account-schema-parts.js";
import { captions, exportAnswer, job, restyleAnswer, styles } from "./_clip-answer-schemas.js";

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
  exportAnswer,
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
  job,
  restyleAnswer,
  captions,
  styles,
};
