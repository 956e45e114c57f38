/**
 * The account's webhook addresses (/api/v1/webhooks, scope "webhooks"). Handlers are thin: the
 * webhook service checks addresses, keeps the limit of 5 and delivers; answers are shaped here. The
 * secret is shown once, in the answer that makes it (create, rotate). Webhooks belong to the
 * account, whichever key mode manages them; each event's `livemode` tells live from test.
 */
import { Type } from "@sinclair/typebox";
import { WEBHOOK_EVENT_TYPES } from "../../daemon/engine/events.js";
import { StringEnum, type JsonSchema } from "../../daemon/engine/stage.js";
import type { WebhookService } from "../../daemon/account/webhooks.js";
import { ApiError } from "../errors.js";
import {
  defineOperation,
  emptyBody,
  settleAnswer,
  uuidParam,
  type Operation,
  type OperationContext,
} from "../registry.js";

const str = (extra: Record<string, unknown> = {}): JsonSchema => ({ type: "string", ...extra });
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
const webhook: JsonSchema = {
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
const S = {
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

const tags = ["webhooks"];
const id = { id: uuidParam };

function _authOf(ctx: OperationContext) {
  if (!ctx.auth) throw new ApiError(401, "unauthorized", "an API key is required");
  return ctx.auth;
}

type WebhookRecord = Awaited<ReturnType<WebhookService["list"]>>[number];
/** A webhook as the API shows it; a new one has no deliveries to read yet. */
async function _view(svc: WebhookService, w: WebhookRecord, fresh = false) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    enabled: w.enabled,
    disabled_reason: w.disabled_reason,
    created_at: w.created_at,
    recent_deliveries: fresh ? [] : await svc.recentDeliveries(w.id),
  };
}

/** What POST /webhooks/{id}/test sends: a small, clearly marked sample of each event's data. */
const SAMPLE_ID = "00000000-0000-4000-8000-000000000000";
const SAMPLES: Record<string, Record<string, unknown>> = {
  "episode.ready": {
    episode_id: SAMPLE_ID,
    name: "Sample episode",
    status: "ready",
    clips: [],
    search: { about: null, state: "succeeded", clips_added: 0 },
  },
  "episode.failed": {
    episode_id: SAMPLE_ID,
    name: "Sample episode",
    status: "failed",
    failure: { code: "sample", message: "a sample failure" },
  },
  "clip.ready": {
    job_id: SAMPLE_ID,
    kind: "render",
    status: "completed",
    clip_id: SAMPLE_ID,
    episode_id: SAMPLE_ID,
    title: "Sample clip",
    progress: 100,
  },
  "clip.failed": {
    job_id: SAMPLE_ID,
    kind: "render",
    status: "failed",
    clip_id: SAMPLE_ID,
    episode_id: SAMPLE_ID,
    title: "Sample clip",
    error: { code: "sample", message: "a sample failure" },
  },
  "transcript.completed": { id: SAMPLE_ID, status: "completed", name: "Sample transcript", downloads: {} },
  "transcript.failed": {
    id: SAMPLE_ID,
    status: "failed",
    name: "Sample transcript",
    error: { code: "sample", message: "a sample failure" },
  },
};

export const listWebhooks = defineOperation({
  id: "listWebhooks",
  method: "GET",
  path: "/api/v1/webhooks",
  summary: "The account's webhook addresses with their last 10 deliveries",
  scope: "webhooks",
  tags,
  responses: { 200: { description: "Webhooks", schema: S.list } },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const svc = ctx.services.webhooks;
    const hooks = await svc.list(auth.account.id);
    return { webhooks: await Promise.all(hooks.map((w) => _view(svc, w))), livemode: auth.livemode };
  },
});

export const createWebhook = defineOperation({
  id: "createWebhook",
  method: "POST",
  path: "/api/v1/webhooks",
  scope: "webhooks",
  tags,
  idempotent: true,
  summary: "Add a webhook address (at most 5); the answer carries its signing secret, shown only here",
  body: S.create,
  responses: {
    201: { description: "Created, with its secret", schema: webhook },
    400: { description: "invalid_url or forbidden_address (https and public networks only)" },
    409: { description: "too_many_webhooks" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const hook = settleAnswer(ctx, 201, async ({ webhook: w, secret }: { webhook: WebhookRecord; secret: string }) => ({
      ...(await _view(ctx.services.webhooks, w, true)),
      secret,
      livemode: auth.livemode,
    }));
    await ctx.services.webhooks.create(auth.account.id, ctx.body, hook.within);
    return hook.answer;
  },
});

export const updateWebhook = defineOperation({
  id: "updateWebhook",
  method: "PATCH",
  path: "/api/v1/webhooks/{id}",
  scope: "webhooks",
  tags,
  params: id,
  idempotent: true,
  summary: "Switch a webhook on or off, or change its events",
  body: S.update,
  responses: { 200: { description: "The webhook", schema: webhook }, 404: { description: "Not on this account" } },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const w = await ctx.services.webhooks.update(auth.account.id, ctx.params.id, ctx.body);
    return { ...(await _view(ctx.services.webhooks, w)), livemode: auth.livemode };
  },
});

export const deleteWebhook = defineOperation({
  id: "deleteWebhook",
  method: "DELETE",
  path: "/api/v1/webhooks/{id}",
  scope: "webhooks",
  tags,
  params: id,
  summary: "Delete a webhook; its pending deliveries stop",
  responses: {
    200: {
      description: "Deleted",
      schema: { type: "object", required: ["id", "deleted"], properties: { id: str(), deleted: { const: true } } },
    },
    404: { description: "Not on this account" },
  },
  async handler(ctx) {
    await ctx.services.webhooks.remove(_authOf(ctx).account.id, ctx.params.id);
    return { id: ctx.params.id, deleted: true };
  },
});

export const testWebhook = defineOperation({
  id: "testWebhook",
  method: "POST",
  path: "/api/v1/webhooks/{id}/test",
  scope: "webhooks",
  tags,
  params: id,
  idempotent: true,
  bodyRequired: false,
  summary: "Send a signed sample event now (one attempt, no retries)",
  body: S.test,
  responses: {
    200: { description: "What the address answered", schema: S.tested },
    404: { description: "Not on this account" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const type = ctx.body.event ?? "episode.ready";
    const data = { ...SAMPLES[type], sample: true, message: "a sample event sent by POST /api/v1/webhooks/{id}/test" };
    const r = await ctx.services.webhooks.sendTest(auth.account.id, ctx.params.id, {
      type,
      livemode: auth.livemode,
      data,
    });
    return {
      delivery_id: r.delivery_id,
      event: type,
      delivered: r.delivered,
      status: r.status,
      ...(r.error ? { error: r.error } : {}),
      livemode: auth.livemode,
    };
  },
});

export const rotateWebhookSecret = defineOperation({
  id: "rotateWebhookSecret",
  method: "POST",
  path: "/api/v1/webhooks/{id}/rotate-secret",
  scope: "webhooks",
  tags,
  params: id,
  idempotent: true,
  summary: "A new signing secret; the old one keeps signing too for 24 hours",
  body: emptyBody,
  responses: {
    200: {
      description: "The new secret, shown only here",
      schema: {
        type: "object",
        required: ["id", "secret", "previous_secret_expires_at"],
        properties: { id: str(), secret: str(), previous_secret_expires_at: str({ format: "date-time" }) },
      },
    },
    404: { description: "Not on this account" },
  },
  async handler(ctx) {
    const hook = settleAnswer(ctx, 200, (r: { secret: string; previous_expires_at: string }) => ({
      id: ctx.params.id,
      secret: r.secret,
      previous_secret_expires_at: r.previous_expires_at,
    }));
    await ctx.services.webhooks.rotateSecret(_authOf(ctx).account.id, ctx.params.id, hook.within);
    return hook.answer;
  },
});

export const WEBHOOK_OPERATIONS: Operation[] = [
  listWebhooks,
  createWebhook,
  updateWebhook,
  deleteWebhook,
  testWebhook,
  rotateWebhookSecret,
];
