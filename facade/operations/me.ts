/**
 * GET /api/v1/me: who the caller is. Any valid key may ask (no scope), test keys included; the
 * account, credit and clip defaults are read fresh from the database, not from the key cache.
 */
import { MAX_KEYS_PER_ACCOUNT } from "../../daemon/account/accounts.js";
import { ApiError } from "../errors.js";
import { defineOperation } from "../registry.js";
import { transcriptsFor } from "./transcripts.js";

const ME_SCHEMA = {
  type: "object",
  required: ["account", "key", "usage", "limits", "credit", "defaults", "livemode"],
  properties: {
    account: {
      type: "object",
      required: ["id", "email", "plan"],
      properties: {
        id: { type: "string", format: "uuid" },
        email: { type: "string" },
        plan: { type: "boolean" },
        billing_review: { type: "boolean" },
        created_at: { type: "string" },
      },
    },
    key: {
      type: "object",
      required: ["id", "prefix", "mode", "scopes", "expires_at"],
      properties: {
        // Not format uuid: a caller that is no API key has a pseudo key named after what it is.
        id: {
          type: "string",
          pattern: "^((oauth|session):)?[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$",
          description:
            "The key's id (a uuid); through an OAuth connection at /mcp oauth:<connection id>, " +
            "and for the website's signed-in session session:<session id>",
        },
        prefix: { type: "string", description: "The first characters of the key, as shown in lists" },
        mode: { enum: ["live", "test"] },
        scopes: { type: "array", items: { type: "string" } },
        expires_at: { type: ["string", "null"] },
        created_at: { type: "string" },
      },
    },
    usage: {
      type: "object",
      description: "This calendar month (UTC), live mode only",
      properties: {
        month: { type: "string", description: "YYYY-MM" },
        plan_episodes_used: { type: "integer" },
        transcripts: { type: "integer" },
        free_transcripts_used: { type: "integer" },
        spent_cents: { type: "integer" },
      },
    },
    limits: {
      type: "object",
      properties: {
        rate_limit: {
          type: "object",
          properties: { requests: { type: "integer" }, window_seconds: { type: "integer" } },
        },
        max_keys: { type: "integer" },
        plan_episodes_per_month: { type: "integer" },
        free_transcripts_per_month: { type: "integer" },
        transcript_max_minutes: { type: "integer" },
      },
    },
    credit: {
      type: "object",
      properties: { credit_cents: { type: "integer" }, plan: { type: "boolean" }, below_zero: { type: "boolean" } },
    },
    prices: {
      type: "object",
      description:
        "What spends credit, from config/pricing.yaml, so a client can say the price before an action: an " +
        "episode by started minute with a minimum (charged when its clip search starts, unless a plan episode " +
        "is left), exports after the included ones of an episode",
      properties: {
        episode_cents_per_minute: { type: "integer" },
        episode_minimum_cents: { type: "integer" },
        exports_included_per_episode: { type: "integer" },
        export_cents_each: { type: "integer" },
      },
    },
    defaults: {
      type: "object",
      description:
        "The look a new export gets for each field its request does not name: saved " +
        "with PATCH /clips/{id} save_as_default, else the service's own",
      required: ["style", "caption_size", "caption_position", "hook_title", "fit", "background"],
      properties: {
        style: { type: "string" },
        caption_size: { enum: ["small", "medium", "large", "extra_large"] },
        caption_position: { enum: ["top", "middle", "lower", "bottom"] },
        hook_title: { type: "boolean" },
        hook_title_anyway: {
          type: "boolean",
          description: "Extension: the title is drawn even when heard with low confidence",
        },
        fit: { enum: ["fill", "whole"] },
        background: { type: "string" },
        aspect_ratio: { enum: ["9:16", "1:1", "4:5", "16:9"], description: "Extension: the clip's shape" },
        brand_kit: {
          anyOf: [{ type: "string", format: "uuid" }, { type: "null" }],
          description: "Extension: the brand kit new clips are made with; null: none",
        },
        censor: {
          enum: ["off", "mask", "bleep"],
          description: "Extension: listed profanity masked or bleeped in new clips' captions",
        },
        emphasis: {
          type: "boolean",
          description: "Extension: numbers and key phrases in the accent colour",
        },
        emoji: { type: "boolean", description: "Extension: a symbol after a key phrase" },
        pace: {
          enum: ["natural", "tight", "off"],
          description: "Extension: which silences between words new clips cut out",
        },
        loudness: {
          anyOf: [{ type: "number" }, { type: "string", enum: ["off"] }],
          description: "Extension: new clips' loudness in LUFS, or off",
        },
        layout: {
          enum: ["auto", "follow", "split", "whole"],
          description: "Extension: how the camera frames people in new clips",
        },
      },
    },
    livemode: { type: "boolean" },
  },
};

export const getMe = defineOperation({
  id: "getMe",
  method: "GET",
  path: "/api/v1/me",
  summary: "The caller's account, this key (prefix, mode, scopes, expiry), this month's use, limits and credit",
  scope: null,
  auth: "key",
  tags: ["account"],
  responses: {
    200: { description: "Who you are", schema: ME_SCHEMA },
    401: { description: "Missing, unknown, revoked or expired key" },
    403: { description: "The account is under billing review" },
    429: { description: "Rate limited" },
  },
  async handler({ auth, services: s }) {
    if (!auth)
      throw new ApiError(401, "unauthorized", "send your API key as Authorization: Bearer svc_live_… or svc_test_…");
    const account = (await s.accounts.getAccount(auth.account.id)) ?? auth.account;
    const billing = s.billing;
    const transcripts = transcriptsFor(s);
    const [spend, tr, defaults] = await Promise.all([
      billing.usage(s.db, account.id),
      transcripts.usage(s.db, account.id),
      s.episodes.looks.defaults(s.db, account.id),
    ]);
    const k = auth.key;
    return {
      account: {
        id: account.id,
        email: account.email,
        plan: account.plan,
        billing_review: account.billing_review,
        created_at: account.created_at,
      },
      // A signed-in website session has no key: its pseudo key (facade/web/session-auth.ts) says so.
      key: {
        id: k.id,
        prefix: k.prefix,
        mode: k.mode,
        scopes: k.scopes,
        expires_at: k.expires_at,
        created_at: k.created_at,
        ...(auth.session ? { web_session: true } : {}),
      },
      usage: {
        month: new Date().toISOString().slice(0, 7),
        plan_episodes_used: spend.plan_episodes_used,
        transcripts: tr.transcripts,
        free_transcripts_used: tr.free_used,
        spent_cents: spend.spent_cents,
      },
      limits: {
        rate_limit: {
          requests: s.config.api.rate_limit.requests,
          window_seconds: s.config.api.rate_limit.window_seconds,
        },
        max_keys: MAX_KEYS_PER_ACCOUNT,
        plan_episodes_per_month: account.plan ? spend.plan_episodes_included : 0,
        free_transcripts_per_month: tr.free_included,
        transcript_max_minutes: transcripts.prices.max_minutes,
      },
      credit: { credit_cents: account.credit_cents, plan: account.plan, below_zero: account.credit_cents < 0 },
      prices: {
        episode_cents_per_minute: billing.prices.episode.cents_per_minute,
        episode_minimum_cents: billing.prices.episode.minimum_cents,
        exports_included_per_episode: billing.prices.exports.included_per_episode,
        export_cents_each: billing.prices.exports.cents_each,
      },
      defaults,
      livemode: auth.livemode,
    };
  },
});
