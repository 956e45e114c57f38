/**
 * The account's webhook addresses (/api/v1/webhooks, scope "webhooks"). Handlers are thin: the
 * webhook service checks addresses, keeps the limit of 5 and delivers; answers are shaped here. The
 * secret is shown once, in the answer that makes it (create, rotate). Webhooks belong to the
 * account, whichever key mode manages them; each event's `livemode` tells live from test. Their
 * schemas are in _webhook-schemas.ts, the test call's sample events in _webhook-samples.ts.
 */
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
import { SAMPLES } from "./_webhook-samples.js";
import { S, str, webhook } from "./_webhook-schemas.js";

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
