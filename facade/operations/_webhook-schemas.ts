// Schemas of the webhook operations (/api/v1/webhooks): the request bodies (TypeBox) and the answers
// (plain JSON Schema: a webhook, its deliveries and their attempts). Kept apart from the handlers in
// webhooks.ts so the operations read as routes.
import { Type } from "@sinclair/typebox";
import { WEBHOOK_EVENT_TYPES } from "../../daemon/engine/events.js";
import { StringEnum, type JsonSchema } from "../../daemon/engine/stage.js";

export const str = (extra: Record<string, unknown> = {}): JsonSchema => ({ type: "string", ...extra });
const eventType = StringEnum(WEBHOOK_EVENT_TYPES);
const eventList = Type.Array(eventType, {
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  description: "Event types to receive (default: all six)",
});
const attempt: JsonSchema = {
  type: "object",
  required: ["attempt", "at", "status_code", "latency_ms"],
  properties: {
    attempt: { type: "integer" },
    at: str({ format: "date-time" }),
    status_code: { anyOf: [{ type: "integer" }, { type: "null" }] },
    latency_ms: { type: "integer" },
    response: { anyOf: [str(), { type: "null" }], description: "First 1 KB of the answer" },
    error: { anyOf: [str(), { type: "null" }] },
  },
};
const delivery: JsonSchema = {
  type: "object",
  required: ["id", "event", "status", "attempts", "created_at"],
  properties: {
    id: str({ description: "The webhook-id header, the same on every attempt" }),
    event: str(),
    test: { type: "boolean" },
    status: str({ enum: ["pending", "delivered", "failed"] }),
    created_at: str({ format: "date-time" }),
    next_attempt_at: { anyOf: [str({ format: "date-time" }), { type: "null" }] },
    attempts: { type: "array", items: attempt },
    attempt_count: { type: "integer", description: "Attempts made so far" },
    response_code: {
      anyOf: [{ type: "integer" }, { type: "null" }],
      description: "The last attempt's HTTP status; null before any answer",
    },
    request_body: str({ description: "The body sent, cut at 1 KB" }),
    response_body: { anyOf: [str(), { type: "null" }], description: "The last answer's body, cut at 1 KB" },
  },
};
export const webhook: JsonSchema = {
  type: "object",
  required: ["id", "url", "events", "enabled", "created_at"],
  properties: {
    id: str({ format: "uuid" }),
    url: str({ format: "uri" }),
    events: { type: "array", items: eventType },
    enabled: { type: "boolean" },
    disabled_reason: { anyOf: [str(), { type: "null" }] },
    created_at: str({ format: "date-time" }),
    recent_deliveries: { type: "array", maxItems: 10, items: delivery },
    secret: str({ pattern: "^whsec_", description: "Shown only in this answer" }),
    livemode: { type: "boolean" },
  },
};
export const S = {
  create: Type.Object(
    {
      url: Type.String({ maxLength: 2000, description: "An https address on a public network" }),
      events: Type.Optional(eventList),
    },
    { additionalProperties: false },
  ),
  update: Type.Object(
    {
      enabled: Type.Optional(
        Type.Boolean({ description: "true switches an address on again (also after clipd switched it off)" }),
      ),
      events: Type.Optional(eventList),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
  test: Type.Object({ event: Type.Optional(eventType) }, { additionalProperties: false }),
  list: {
    type: "object",
    required: ["webhooks"],
    properties: { webhooks: { type: "array", items: webhook }, livemode: { type: "boolean" } },
  } as JsonSchema,
  tested: {
    type: "object",
    required: ["delivery_id", "event", "delivered", "status"],
    properties: {
      delivery_id: str(),
      event: eventType,
      delivered: { type: "boolean" },
      status: {
        anyOf: [{ type: "integer" }, { type: "null" }],
        description: "The address's HTTP status; null when it did not answer",
      },
      error: str(),
      livemode: { type: "boolean" },
    },
  } as JsonSchema,
};
