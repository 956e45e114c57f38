/**
 * The free transcription API (/api/v1/transcribe), apart from the account API: an optional free
 * key (`svc_free_…`) picks the key tier, no key the no-key tier. Limits, budget, callbacks and
 * retention live in daemon/free/service.ts; the link is checked here first (https, public addresses).
 */
import { Type } from "@sinclair/typebox";
import type { FreeService } from "../../daemon/free/service.js";
import { freeConfig } from "../../daemon/free/config.js";
import { ApiError } from "../errors.js";
import { defineOperation, uuidParam, type Operation } from "../registry.js";
import type { FacadeServices } from "../services.js";
import { linkBase } from "../uploads.js";
import { checkUrlShape } from "../../daemon/net/public-url.js";
import { checkSourceUrl, httpsLink } from "./transcripts.js";

/** The free service of this process (built by the composition root), told where links point. */
export function freeFor(s: FacadeServices, origin?: string): FreeService {
  s.free.noteOrigin(origin);
  return s.free;
}

const errorSchema = (codes: string[]) => ({ description: `Refused: ${codes.join(", ")} (error.code)` });

const POLL_SCHEMA = {
  type: "object",
  required: ["id", "status"],
  properties: {
    id: { type: "string", format: "uuid" },
    status: { enum: ["processing", "completed", "failed"] },
    code: { type: "string", description: "no_speech when the job ran and heard no speech" },
    elapsed_seconds: { type: "integer" },
    poll_after_seconds: { type: "integer" },
    duration_seconds: { type: ["number", "null"] },
    word_count: { type: "integer" },
    language: {
      type: ["string", "null"],
      description: "Detected language (ISO 639-1, `und` when it could not be told); English is the supported language",
    },
    language_source: {
      enum: ["engine", "text", "model"],
      description:
        "How the language was found: reported by the engine, identified from the text, or the English-only model's",
    },
    language_note: { type: "string", description: "Present when the speech is not English, the supported language" },
    text: { type: "string" },
    srt: { type: "string" },
    vtt: { type: "string" },
    text_url: { type: "string" },
    audio_url: {
      type: "string",
      format: "uri",
      description:
        "Extension: a signed link to the kept recording (supports Range), for a player; it expires when " +
        "the recording is deleted (free.audio_retention_days after submission), and is absent after",
    },
    audio_expires_at: {
      type: "string",
      format: "date-time",
      description: "Extension: when audio_url stops working",
    },
    srt_url: { type: "string" },
    vtt_url: { type: "string" },
    note: { type: "string", description: "Why links replace the inline results (1 MB or more)" },
    error: {
      type: "object",
      properties: {
        code: { type: "string" },
        message: { type: "string" },
        max_duration_seconds: { type: "number" },
        duration_seconds: { type: "number" },
        max_bytes: { type: "integer" },
      },
    },
  },
};

export const createFreeTranscription = defineOperation({
  id: "createFreeTranscription",
  method: "POST",
  path: "/api/v1/transcribe",
  summary: "Free transcription of a direct https media link (optional free key: Authorization: Bearer svc_free_…)",
  scope: null,
  auth: "free-optional",
  rateLimited: true,
  tags: ["free"],
  body: Type.Object(
    {
      url: httpsLink("Direct https link to an audio or video file"),
      callback_url: Type.Optional(
        httpsLink("Receives the result or failure, signed per Standard Webhooks with callback_secret"),
      ),
    },
    { additionalProperties: false },
  ),
  responses: {
    202: {
      description: "Accepted; poll poll_url",
      schema: {
        type: "object",
        required: ["id", "poll_url"],
        properties: {
          id: { type: "string", format: "uuid" },
          poll_url: { type: "string" },
          callback_secret: { type: "string", description: "Signs the callback (given with callback_url only, once)" },
        },
      },
    },
    400: errorSchema(["invalid_request", "unreadable", "forbidden_address", "invalid_url"]),
    401: errorSchema(["bad_key"]),
    413: errorSchema(["too_long (max_duration_seconds, duration_seconds)", "too_long_anon", "too_big"]),
    429: errorSchema([
      "daily_limit (resets_at)",
      "anon_daily_limit (resets_at)",
      "unmeasured_limit (resets_at)",
      "rate_limited",
    ]),
    503: errorSchema(["ceiling (resets_at)", "anon_ceiling (resets_at)"]),
  },
  async handler(ctx) {
    const { body, services: s, caller } = ctx;
    const svc = freeFor(s, caller.linkOrigin);
    const keyId = caller.presentedCredentials ? await svc.authenticate(caller.bearer ?? "") : null;
    // Both links' own form first, so a bad callback_url is named whatever the state of url's host.
    checkUrlShape(body.url, "url");
    if (body.callback_url) checkUrlShape(body.callback_url, "callback_url");
    const url = await checkSourceUrl(body.url, s.config);
    let callbackUrl: string | undefined;
    if (body.callback_url) {
      callbackUrl = (await checkSourceUrl(body.callback_url, s.config, "callback_url")).href;
    }
    // A proxy's word on the client address counts only where the config trusts it.
    const clientAddr = freeConfig(s.config).trust_proxy
      ? (caller.forwardedAddr ?? caller.clientAddr)
      : caller.clientAddr;
    const job = await svc.submit({ url: url.href, callbackUrl, keyId, clientAddr });
    ctx.status = 202;
    const base = linkBase(s.config, caller.linkOrigin);
    return {
      id: job.id,
      poll_url: `${base}/api/v1/transcribe/${job.id}?token=${job.token}`,
      ...(job.callback_secret ? { callback_secret: job.callback_secret } : {}),
    };
  },
});

export const getFreeTranscription = defineOperation({
  id: "getFreeTranscription",
  method: "GET",
  path: "/api/v1/transcribe/{id}",
  summary: "Polls a free transcription (the token comes in poll_url)",
  scope: null,
  rateLimited: true,
  tags: ["free"],
  params: { id: uuidParam },
  query: Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })) }),
  responses: {
    200: {
      description:
        "Processing, completed (text, srt, vtt inline, or links with a note when " +
        "1 MB or more; code no_speech when nothing was heard), or failed",
      schema: POLL_SCHEMA,
    },
    404: errorSchema(["not_found (wrong or missing token)", "expired (deleted by retention)"]),
    429: errorSchema(["rate_limited"]),
  },
  async handler({ params, query, services: s, caller }) {
    const svc = freeFor(s, caller.linkOrigin);
    const row = await svc.get(params.id, query.token);
    if (!row) throw new ApiError(404, "not_found", `no transcription ${params.id} with this token`, { field: "id" });
    if (row.status === "expired")
      throw new ApiError(404, "expired", `transcription ${params.id} was deleted after the retention period`, {
        field: "id",
      });
    return svc.view(row, caller.linkOrigin);
  },
});

export const createFreeKey = defineOperation({
  id: "createFreeKey",
  method: "POST",
  path: "/api/v1/transcribe/keys",
  summary: "Issues a free key (shown once; 3 a day per email address)",
  scope: null,
  rateLimited: true,
  tags: ["free"],
  body: Type.Object({ email: Type.String({ minLength: 3, maxLength: 320 }) }, { additionalProperties: false }),
  responses: {
    201: {
      description: "The key, shown once",
      schema: { type: "object", required: ["key"], properties: { key: { type: "string" } } },
    },
    400: errorSchema(["invalid_request"]),
    429: errorSchema(["key_limit (resets_at)", "rate_limited"]),
  },
  async handler(ctx) {
    const key = await freeFor(ctx.services).issueKey(ctx.body.email);
    ctx.status = 201;
    return { key };
  },
});

export const revokeFreeKey = defineOperation({
  id: "revokeFreeKey",
  method: "DELETE",
  path: "/api/v1/transcribe/keys",
  summary: "Revokes the free key sent as the Bearer token, at once",
  scope: null,
  rateLimited: true,
  tags: ["free"],
  responses: {
    200: {
      description: "Revoked",
      schema: {
        type: "object",
        required: ["revoked"],
        properties: { revoked: { type: "boolean" }, revoked_at: { type: "string" } },
      },
    },
    401: errorSchema(["bad_key"]),
    429: errorSchema(["rate_limited"]),
  },
  async handler({ services: s, caller }) {
    const { revoked_at } = await freeFor(s).revokeKey(caller.bearer ?? "");
    return { revoked: true, revoked_at };
  },
});

export const FREE_OPERATIONS: Operation[] = [
  createFreeTranscription,
  getFreeTranscription,
  createFreeKey,
  revokeFreeKey,
];
