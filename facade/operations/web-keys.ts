/**
 * The website's keys page (web-only): list, create (the key shown once, in the 201 answer) and
 * revoke the signed-in account's API keys. The limit of 5 and revocation across processes are
 * AccountService's own.
 */
import { MAX_KEYS_PER_ACCOUNT, SCOPES, type ApiKey } from "../../daemon/account/accounts.js";
import { Type } from "@sinclair/typebox";
import type { JsonSchema } from "../../daemon/engine/stage.js";
import { defineOperation, enumOf, uuidParam, type Operation } from "../registry.js";
import { sessionOf } from "./web-account.js";

const web = { surfaces: ["web" as const], tags: ["web"], scope: null, auth: "session" as const };
const nullable = (s: JsonSchema): JsonSchema => ({ anyOf: [s, { type: "null" }] });
const KEY: JsonSchema = {
  type: "object",
  required: ["id", "name", "prefix", "mode", "scopes", "created_at", "last_used_at", "expires_at", "status"],
  properties: {
    id: { type: "string", format: "uuid" },
    name: nullable({ type: "string" }),
    prefix: { type: "string" },
    mode: { enum: ["live", "test"] },
    scopes: { type: "array", items: { enum: [...SCOPES] } },
    created_at: { type: "string" },
    last_used_at: nullable({ type: "string" }),
    expires_at: nullable({ type: "string" }),
    revoked_at: nullable({ type: "string" }),
    status: { enum: ["active", "revoked", "expired"] },
  },
};

function view(k: ApiKey) {
  const status = k.revoked_at
    ? "revoked"
    : k.expires_at && Date.parse(k.expires_at) <= Date.now()
      ? "expired"
      : "active";
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    mode: k.mode,
    scopes: k.scopes,
    created_at: k.created_at,
    last_used_at: k.last_used_at,
    expires_at: k.expires_at,
    revoked_at: k.revoked_at,
    status,
  };
}

const listKeys = defineOperation({
  id: "listKeys",
  method: "GET",
  path: "/api/v1/keys",
  ...web,
  summary: "The account's API keys: name, prefix, mode, scopes, created, last used, expiry and status",
  responses: {
    200: {
      description: "Keys, oldest first",
      schema: {
        type: "object",
        required: ["keys", "max_keys"],
        properties: { keys: { type: "array", items: KEY }, max_keys: { type: "integer" } },
      },
    },
  },
  async handler(ctx) {
    const keys = await ctx.services.accounts.listKeys(sessionOf(ctx).accountId);
    return { keys: keys.map(view), max_keys: MAX_KEYS_PER_ACCOUNT };
  },
});

const createKey = defineOperation({
  id: "createKey",
  method: "POST",
  path: "/api/v1/keys",
  ...web,
  summary: "Make an API key; the key itself is in this answer only",
  body: Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 80 }),
      mode: enumOf(["live", "test"]),
      scopes: Type.Array(enumOf(SCOPES), { minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
      expires_in_days: Type.Optional(Type.Union([enumOf([30, 90]), Type.Null()], { description: "null: never" })),
    },
    { additionalProperties: false },
  ),
  responses: {
    201: { description: "The key, shown once" },
    409: { description: `too_many_keys: ${MAX_KEYS_PER_ACCOUNT} active keys at most` },
  },
  async handler(ctx) {
    const b = ctx.body;
    const { key, apiKey } = await ctx.services.accounts.createKey({
      accountId: sessionOf(ctx).accountId,
      name: b.name.trim() || b.name,
      mode: b.mode,
      scopes: b.scopes,
      expiresInDays: b.expires_in_days ?? undefined,
    });
    ctx.status = 201;
    return { key, ...view(apiKey) };
  },
});

const revokeKey = defineOperation({
  id: "revokeKey",
  method: "DELETE",
  path: "/api/v1/keys/{id}",
  ...web,
  params: { id: uuidParam },
  summary: "Revoke a key at once, in every clipd process",
  responses: { 200: { description: "Revoked" }, 404: { description: "No such key on this account" } },
  async handler(ctx) {
    const k = await ctx.services.accounts.revokeKeyOf(sessionOf(ctx).accountId, ctx.params.id);
    return view(k);
  },
});

export const WEB_KEY_OPERATIONS: Operation[] = [listKeys, createKey, revokeKey];
