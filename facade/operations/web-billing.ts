/**
 * The website's billing page (web-only): what the signed-in account has and has used, and buying
 * credit or the plan through the configured payment provider (daemon/payments/). Prices, the plan
 * allowance and the ledger are BillingService's; this file only shapes the answers.
 */
import { Type } from "@sinclair/typebox";
import type { JsonSchema } from "../../daemon/engine/stage.js";
import { defineOperation, type Operation } from "../registry.js";
import { sessionOf } from "./web-account.js";

const web = { surfaces: ["web" as const], tags: ["web"], scope: null, auth: "session" as const };
const int: JsonSchema = { type: "integer" };
const str: JsonSchema = { type: "string" };
const obj = (properties: Record<string, JsonSchema>, extra: Record<string, unknown> = {}): JsonSchema => ({
  type: "object",
  required: Object.keys(properties),
  properties,
  ...extra,
});

const BILLING: JsonSchema = obj({
  balance: obj({ credit_cents: int, below_zero: { type: "boolean" } }),
  plan: obj({ on: { type: "boolean" }, cents_per_month: int, api_episodes_per_month: int, api_episodes_used: int }),
  month: { type: "string", description: "YYYY-MM (UTC) of `use`" },
  use: {
    type: "array",
    items: obj({ operation: str, count: int, cents: int }),
    description: "This month's charges by operation (episodes, exports, transcripts)",
  },
  ledger: {
    type: "array",
    maxItems: 50,
    items: obj({ id: str, at: str, cents: int, kind: str, note: { anyOf: [str, { type: "null" }] } }),
    description: "The latest 50 movements, newest first",
  },
  provider: {
    type: "object",
    required: ["name", "packs_cents", "plan_cents_per_month", "plan_checkout"],
    properties: {
      name: { enum: ["manual", "stripe"] },
      packs_cents: { type: "array", items: int },
      plan_cents_per_month: int,
      plan_checkout: { type: "boolean" },
      instruction: str,
    },
  },
});

const getBilling = defineOperation({
  id: "getBilling",
  method: "GET",
  path: "/api/v1/billing",
  ...web,
  summary:
    "The account's balance, plan and its API episodes used, this month's use " +
    "by operation, the latest ledger rows and how credit is bought",
  responses: { 200: { description: "The billing page's data", schema: BILLING } },
  handler: (ctx) => ctx.services.payments.view(sessionOf(ctx).accountId),
});

const checkout = defineOperation({
  id: "checkout",
  method: "POST",
  path: "/api/v1/billing/checkout",
  ...web,
  summary: "Buy a credit pack ({pack_cents}) or the plan ({plan: true}): answers the provider's checkout address",
  body: Type.Object(
    {
      pack_cents: Type.Optional(Type.Integer({ description: "One of the packs offered (provider.packs_cents)" })),
      // Unsafe: `{ const: true }` as it was (TypeBox's literal adds a type).
      plan: Type.Optional(Type.Unsafe<true>({ const: true })),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
  responses: {
    200: { description: "Where to send the buyer", schema: obj({ checkout_url: { type: "string", format: "uri" } }) },
    400: { description: "Neither or both of pack_cents and plan, or a pack size not offered (packs_cents lists them)" },
    409: {
      description: "manual_provider: credit is added by the operator (the message names the command); plan_unavailable",
    },
    503: { description: "payment_provider_unavailable: the provider did not open a checkout" },
  },
  handler: (ctx) =>
    ctx.services.payments.checkout(
      sessionOf(ctx).accountId,
      ctx.body,
      ctx.caller.web?.siteOrigin ?? ctx.caller.linkOrigin ?? "",
    ),
});

export const WEB_BILLING_OPERATIONS: Operation[] = [getBilling, checkout];
