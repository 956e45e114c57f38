/**
 * POST /api/v1/transcripts and GET /api/v1/transcripts/{id}: transcripts of a recording behind a
 * direct https link, made by the `transcript` pipeline. The link is checked here before anything
 * starts: https only, and every address its host resolves to must be public (daemon/net/guard);
 * fetch-source checks again when it downloads, pinned to the checked address.
 */
import { Type } from "@sinclair/typebox";
import {
  type TranscriptService,
  transcriptKeys,
  type Ordered,
  type TranscriptRecord,
} from "../../daemon/account/transcripts.js";
import { extensionOf } from "../../daemon/domain/media-types.js";
import { checkPublicUrl } from "../../daemon/net/public-url.js";
import type { AuthContext } from "../auth.js";
import { ApiError } from "../errors.js";
import { defineOperation, settleAnswer, uuidParam, type Operation } from "../registry.js";
import type { FacadeServices } from "../services.js";
import { formatDuration } from "../_format.js";
import { sampleIds, sampleTranscript } from "../testmode.js";
import { downloadLink, sanitiseFileName } from "../uploads.js";
import { resultsLink } from "./web-studio-results.js";

/** The transcript service of this process (built by the composition root). */
export function transcriptsFor(s: FacadeServices): TranscriptService {
  return s.transcripts;
}

/** Checks a user link (daemon/net/public-url.ts) as the request field `field`; returns it without its fragment. */
export function checkSourceUrl(raw: string, config: FacadeServices["config"], field = "url"): Promise<URL> {
  return checkPublicUrl(raw, { field, config, purpose: "only public addresses can be fetched" });
}

/** A display name from the link: its last path segment without the extension. */
function nameFromUrl(url: URL): string {
  let last = url.pathname.split("/").filter(Boolean).pop() ?? "";
  try {
    last = decodeURIComponent(last);
  } catch {
    /* keep it encoded */
  }
  const ext = extensionOf(last);
  const stem = (ext ? last.slice(0, -ext.length) : last).trim();
  return (stem || "transcript").slice(0, 200);
}

async function toView(s: FacadeServices, svc: TranscriptService, t: TranscriptRecord, origin: string | undefined) {
  const keys = transcriptKeys(t.run_id ?? t.id);
  const base = sanitiseFileName(`${t.name}.txt`).replace(/\.txt$/, "");
  const link = (key: string, ext: string) => downloadLink(s, { key, name: `${base}.${ext}`, origin }).url;
  const text = await svc.text(t);
  return {
    id: t.id,
    status: t.status,
    name: t.name,
    url: t.url,
    ...(text !== undefined ? { text } : {}),
    language: t.result?.language ?? null,
    duration: formatDuration(t.duration_seconds),
    duration_seconds: t.duration_seconds,
    word_count: t.result?.word_count ?? null,
    progress: t.progress,
    eta_seconds: t.eta_seconds,
    charged_cents: t.charged_cents,
    free: t.free,
    ...(t.error ? { error: { code: t.error.code, message: t.error.message } } : {}),
    downloads: {
      // The site's results page; a clipd serving no site links the plain HTML page instead.
      page: s.config.web.enabled
        ? resultsLink(s, { source: "account", id: t.id, origin }).url
        : link(t.result?.page ?? keys.page, "html"),
      txt: link(t.result?.files?.txt ?? keys.txt, "txt"),
      srt: link(t.result?.files?.srt ?? keys.srt, "srt"),
      vtt: link(t.result?.files?.vtt ?? keys.vtt, "vtt"),
    },
    created_at: t.created_at,
    completed_at: t.status === "completed" ? t.finished_at : null,
    livemode: t.livemode,
  };
}

const downloadsSchema = {
  type: "object",
  required: ["page", "txt", "srt", "vtt"],
  properties: { page: { type: "string" }, txt: { type: "string" }, srt: { type: "string" }, vtt: { type: "string" } },
};
export const TRANSCRIPT_SCHEMA = {
  type: "object",
  required: ["id", "status", "downloads", "livemode"],
  properties: {
    id: { type: "string", format: "uuid" },
    status: { enum: ["queued", "running", "completed", "failed"] },
    name: { type: "string" },
    url: { type: "string" },
    text: { type: "string", description: "The plain text, once completed" },
    language: { type: ["string", "null"] },
    duration: { type: ["string", "null"], description: "mm:ss" },
    duration_seconds: { type: ["number", "null"] },
    word_count: { type: ["integer", "null"] },
    progress: { type: "number" },
    eta_seconds: {
      type: ["integer", "null"],
      minimum: 0,
      description: "Seconds the transcription still expects to take, from its measured speed; null without an estimate",
    },
    charged_cents: { type: "integer" },
    free: { type: "boolean", description: "Counted against the month's free transcripts" },
    error: { type: "object", properties: { code: { type: "string" }, message: { type: "string" } } },
    downloads: {
      ...downloadsSchema,
      description: "Signed links, valid 7 days; they answer 404 until the transcript is completed",
    },
    created_at: { type: "string" },
    completed_at: { type: ["string", "null"] },
    livemode: { type: "boolean" },
  },
};

/** A request field holding an https link (the free API's too). */
export const httpsLink = (description: string) =>
  Type.String({ format: "uri", pattern: "^https://", maxLength: 2048, description });

const liveAuth = (auth: AuthContext | undefined): AuthContext => auth!;

export const createTranscript = defineOperation({
  id: "createTranscript",
  method: "POST",
  path: "/api/v1/transcripts",
  summary: "Transcribes the recording behind a direct https link (or returns the account's transcript of that link)",
  scope: "transcripts",
  idempotent: true,
  tags: ["transcripts"],
  body: Type.Object(
    {
      url: httpsLink("Direct https link to an audio or video file"),
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    },
    { additionalProperties: false },
  ),
  responses: {
    200: {
      description: "This link is already transcribed for the account: that transcript",
      schema: TRANSCRIPT_SCHEMA,
    },
    202: { description: "Accepted; poll GET /api/v1/transcripts/{id}", schema: TRANSCRIPT_SCHEMA },
    400: { description: "Invalid body, or a link to a private or unknown host (the field is named)" },
    401: { description: "Missing, unknown, revoked or expired key" },
    402: {
      description: "The free transcripts of the month are used and credit is missing (needed_cents, credit_cents)",
    },
    403: { description: "The key lacks the transcripts scope, or the account is under billing review" },
    409: { description: "A request with this Idempotency-Key is still running" },
    422: { description: "This Idempotency-Key was used with another body" },
    429: { description: "Rate limited; retry_after says when" },
  },
  async handler(ctx) {
    const { body, auth, services: s } = ctx;
    const a = liveAuth(auth);
    const url = await checkSourceUrl(body.url, s.config);
    const origin = ctx.caller.linkOrigin;
    if (!a.livemode) {
      ctx.status = 202;
      return sampleTranscript({ services: s, origin });
    }
    const svc = transcriptsFor(s);
    const hook = settleAnswer(
      ctx,
      ({ transcript, created }: Ordered) => (!created && transcript.status === "completed" ? 200 : 202),
      (o: Ordered) => toView(s, svc, o.transcript, origin),
    );
    await svc.order(
      { accountId: a.account.id, url: url.href, name: body.name ?? nameFromUrl(url), origin: ctx.caller.surface },
      hook.within,
    );
    return hook.answer;
  },
});

export const getTranscript = defineOperation({
  id: "getTranscript",
  method: "GET",
  path: "/api/v1/transcripts/{id}",
  summary: "Shows a transcript: status, progress, and the text and download links when completed",
  scope: "transcripts",
  tags: ["transcripts"],
  params: { id: uuidParam },
  responses: {
    200: { description: "The transcript", schema: TRANSCRIPT_SCHEMA },
    401: { description: "Missing, unknown, revoked or expired key" },
    403: { description: "The key lacks the transcripts scope" },
    404: { description: "No such transcript on this account" },
    429: { description: "Rate limited" },
  },
  async handler({ params, auth, services: s, caller }) {
    const a = liveAuth(auth);
    const origin = caller.linkOrigin;
    const notFound = () =>
      new ApiError(404, "not_found", `transcript ${params.id} does not exist on this account`, { field: "id" });
    if (!a.livemode) {
      if (params.id.toLowerCase() !== sampleIds().transcript) throw notFound();
      return sampleTranscript({ services: s, origin });
    }
    const svc = transcriptsFor(s);
    const t = await svc.get(a.account.id, params.id);
    if (!t || !t.livemode) throw notFound();
    return toView(s, svc, t, origin);
  },
});

export const TRANSCRIPT_OPERATIONS: Operation[] = [createTranscript, getTranscript];
