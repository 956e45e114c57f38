/**
 * The website's upload-started work (web-only; docs/website.md, "Web-only calls of the studio"):
 * a transcript of an uploaded file for the signed-in account, and a free transcription of an
 * uploaded file from the public free page. Each hands out the API's own signed upload address
 * (chunked PUTs and HEAD: upload-chunks.ts), then a second call starts the work once the file is
 * there. The rules are the services': daemon/account/transcript-uploads.ts and daemon/free/uploads.ts.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { Type } from "@sinclair/typebox";
import { startTranscriptUpload, recordTranscriptUpload } from "../../daemon/account/transcript-uploads.js";
import { freeConfig } from "../../daemon/free/config.js";
import { recordFreeUpload, startFreeUpload } from "../../daemon/free/uploads.js";
import { EPISODE_MAX_BYTES } from "../../daemon/domain/limits.js";
import type { JsonSchema } from "../../daemon/engine/stage.js";
import type { Caller } from "../core/caller.js";
import { defineOperation, emptyBody, uuidParam, type Operation } from "../registry.js";
import { linkBase, uploadLink, type UploadLink } from "../uploads.js";
import { closeUpload } from "../upload-closed.js";
import { freeFor } from "./free.js";
import { getTranscript } from "./transcripts.js";
import { sessionOf } from "./web-account.js";

const FILE_BODY = Type.Object(
  {
    file_name: Type.String({
      minLength: 1,
      maxLength: 255,
      description: "Name of the file to upload (its extension must be a media type)",
    }),
  },
  { additionalProperties: false },
);
const UPLOAD: JsonSchema = {
  type: "object",
  required: ["method", "url", "headers", "expires_at"],
  properties: {
    method: { enum: ["PUT"] },
    url: { type: "string" },
    headers: { type: "object" },
    expires_at: { type: "string" },
  },
};
const uploadView = (u: UploadLink) => ({ method: u.method, url: u.url, headers: u.headers, expires_at: u.expires_at });
const session = { surfaces: ["web" as const], tags: ["web"], scope: null, auth: "session" as const };
const open = { surfaces: ["web" as const], tags: ["web"], scope: null, auth: "public" as const, rateLimited: true };

const createTranscriptUpload = defineOperation({
  id: "createTranscriptUpload",
  method: "POST",
  path: "/api/v1/transcripts/uploads",
  ...session,
  summary: "An upload address for a file to transcribe; POST …/transcripts/{transcript_id}/uploaded once it is stored",
  body: FILE_BODY,
  responses: {
    202: {
      description: "The transcript's id to be and its upload address",
      schema: {
        type: "object",
        required: ["transcript_id", "upload"],
        properties: { transcript_id: { type: "string", format: "uuid" }, upload: UPLOAD },
      },
    },
    400: { description: "unsupported_type: the file name is not an accepted media file" },
  },
  async handler(ctx) {
    const { accountId } = sessionOf(ctx);
    const id = randomUUID();
    const s = ctx.services;
    const up = uploadLink(s, {
      accountId,
      ref: id,
      fileName: ctx.body.file_name,
      maxBytes: EPISODE_MAX_BYTES,
      origin: ctx.caller.linkOrigin,
    });
    await recordTranscriptUpload(
      { db: s.db, storage: s.storage, transcripts: s.transcripts },
      { id, accountId, key: up.key, fileName: ctx.body.file_name, expiresAt: up.expires_at },
    );
    ctx.status = 202;
    return { transcript_id: id, upload: uploadView(up) };
  },
});

const transcriptUploaded = defineOperation({
  id: "transcriptUploaded",
  method: "POST",
  path: "/api/v1/transcripts/{id}/uploaded",
  ...session,
  params: { id: uuidParam },
  bodyRequired: false,
  summary:
    "Say the upload is stored: the transcript starts (the month's free transcripts first, then credit, as from a link)",
  body: emptyBody,
  responses: {
    200: { description: "Started before: the transcript as GET /transcripts/{id} shows it" },
    202: { description: "Started: the transcript as GET /transcripts/{id} shows it" },
    402: {
      description: "The free transcripts of the month are used and credit is missing (needed_cents, credit_cents)",
    },
    404: { description: "No such upload on this account" },
    409: { description: "upload_missing: nothing was uploaded yet" },
  },
  async handler(ctx) {
    const { accountId } = sessionOf(ctx);
    const s = ctx.services;
    const id = ctx.params.id;
    const { created } = await startTranscriptUpload(
      { db: s.db, storage: s.storage, transcripts: s.transcripts },
      { accountId, id, origin: ctx.caller.surface },
    );
    // Started: the address is closed to later PUTs (facade/upload-closed.ts).
    await closeUpload(s.db, id);
    const view = await getTranscript.handler({ ...ctx, body: undefined, params: { id } });
    ctx.status = created ? 202 : 200;
    return view;
  },
});

/** The free key sent as a Bearer token, if any (the web transport passes no bearer; this call takes one). */
function freeKeyOf(caller: Caller): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(caller.request?.headers.get("authorization") ?? "");
  return m?.[1];
}

const createFreeUpload = defineOperation({
  id: "createFreeUpload",
  method: "POST",
  path: "/api/v1/free/uploads",
  ...open,
  summary:
    "An upload address for a free transcription (an optional free key as Bearer " +
    "raises the limits); POST …/free/uploads/{id}/uploaded once it is stored",
  body: FILE_BODY,
  responses: {
    202: {
      description: "The job's id to be, its upload address and its poll_url",
      schema: {
        type: "object",
        required: ["id", "upload", "poll_url"],
        properties: { id: { type: "string", format: "uuid" }, upload: UPLOAD, poll_url: { type: "string" } },
      },
    },
    400: { description: "unsupported_type: the file name is not an accepted media file" },
    401: { description: "bad_key: an unknown or revoked free key" },
    429: { description: "daily_limit or anon_daily_limit (resets_at): today's files are used" },
    503: { description: "ceiling or anon_ceiling (resets_at): the month's budget is spent" },
  },
  async handler(ctx) {
    const { services: s, caller } = ctx;
    const svc = freeFor(s, caller.linkOrigin);
    const bearer = freeKeyOf(caller);
    const keyId = bearer === undefined ? null : await svc.authenticate(bearer);
    const cfg = freeConfig(s.config);
    const clientAddr = cfg.trust_proxy ? (caller.forwardedAddr ?? caller.clientAddr) : caller.clientAddr;
    const id = randomUUID();
    const token = randomBytes(24).toString("base64url");
    const up = uploadLink(s, {
      accountId: "free",
      ref: id,
      fileName: ctx.body.file_name,
      maxBytes: cfg.max_bytes,
      origin: caller.linkOrigin,
    });
    await recordFreeUpload(
      { db: s.db, storage: s.storage, free: svc },
      { id, token, keyId, clientAddr, key: up.key, fileName: ctx.body.file_name, expiresAt: up.expires_at },
    );
    ctx.status = 202;
    return {
      id,
      upload: uploadView(up),
      poll_url: `${linkBase(s.config, caller.linkOrigin)}/api/v1/transcribe/${id}?token=${token}`,
    };
  },
});

const freeUploaded = defineOperation({
  id: "freeUploaded",
  method: "POST",
  path: "/api/v1/free/uploads/{id}/uploaded",
  ...open,
  params: { id: uuidParam },
  bodyRequired: false,
  summary:
    "Say the free upload is stored: it is measured, held to the tier's limits, and transcribed; poll its poll_url",
  body: emptyBody,
  responses: {
    202: {
      description: "Started (or started before): poll the poll_url",
      schema: {
        type: "object",
        required: ["id", "status"],
        properties: {
          id: { type: "string", format: "uuid" },
          status: { enum: ["processing"] },
          duration_seconds: { type: "number" },
        },
      },
    },
    400: { description: "unreadable: not an audio or video file with sound (deleted)" },
    404: { description: "No such upload (or it was refused and deleted)" },
    409: { description: "upload_missing: nothing was uploaded yet" },
    413: {
      description:
        "too_long / too_long_anon (max_duration_seconds, duration_seconds) or too_big " +
        "(max_bytes, size_bytes); the file is deleted",
    },
    429: { description: "daily_limit / anon_daily_limit / unmeasured_limit (resets_at); the file is deleted" },
    503: { description: "ceiling / anon_ceiling (resets_at); the file is deleted" },
  },
  async handler(ctx) {
    const s = ctx.services;
    const svc = freeFor(s, ctx.caller.linkOrigin);
    const started = await startFreeUpload({ db: s.db, storage: s.storage, free: svc }, ctx.params.id);
    await closeUpload(s.db, ctx.params.id);
    ctx.status = 202;
    return {
      id: started.id,
      status: "processing",
      ...(started.duration_seconds !== undefined
        ? { duration_seconds: Math.round(started.duration_seconds * 10) / 10 }
        : {}),
    };
  },
});

export const WEB_UPLOAD_OPERATIONS: Operation[] = [
  createTranscriptUpload,
  transcriptUploaded,
  createFreeUpload,
  freeUploaded,
];
