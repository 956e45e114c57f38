/**
 * The account API's episodes, clips, jobs, captions and styles (/api/v1). Handlers are thin: they
 * check what JSON Schema cannot (style names, field combinations), call the episode service, and
 * shape answers; links are signed here. Test keys (livemode false) get the sample data of
 * facade/testmode.ts and never reach the service: nothing is started or charged for them.
 */
import { randomUUID } from "node:crypto";
import type { ClipLook, ClipRow, EpisodeRow, JobRow } from "../../daemon/episodes.js";
import { EpisodeService, MAX_EPISODE_BYTES } from "../../daemon/episodes.js";
import type { JsonSchema } from "../../daemon/stage.js";
import { ApiError } from "../errors.js";
import { defineOperation, uuidParam, type Operation, type OperationContext } from "../registry.js";
import { downloadLink, requestOrigin, uploadLink } from "../uploads.js";
import { loadTestFixtures } from "../testmode.js";

// ---- schemas (request bodies allow no extra properties; answers are checked in the API tests) --

const str = (extra: Record<string, unknown> = {}): JsonSchema => ({ type: "string", ...extra });
const nullable = (s: JsonSchema): JsonSchema => ({ anyOf: [s, { type: "null" }] });
const livemode: JsonSchema = { type: "boolean", description: "false for test keys (sample data)" };
const look: Record<string, JsonSchema> = {
  style: str({ minLength: 1, maxLength: 60, description: "A style id or name from GET /api/v1/styles" }),
  caption_size: str({ enum: ["small", "medium", "large", "extra_large", "smaller", "bigger"], description: "smaller/bigger step from the current size" }),
  caption_position: str({ enum: ["top", "middle", "lower", "bottom", "up", "down"], description: "up/down step from the current position" }),
  hook_title: { anyOf: [{ type: "boolean" }, { type: "string", minLength: 1, maxLength: 120 }], description: "Title box for the first seconds: true the clip's title, a string its words, false none" },
  fit: str({ enum: ["crop", "whole"], description: "crop: fill 9:16 on the salient region; whole: the whole picture on the background" }),
  background: str({ enum: ["blur", "black", "white", "gray", "navy", "dark"], description: "Around a whole picture (fit whole), and the gradient of audio clips" }),
};
const clipItem: JsonSchema = { anyOf: [{ type: "integer", minimum: 1 }, { type: "string", pattern: "^c[0-9a-f]{3,40}$" }], description: "A clip number or ref" };
const money = { charged_cents: { type: "integer", minimum: 0, description: "What this call charged" } };
const progress: JsonSchema = {
  type: "object", required: ["stage", "percent"],
  properties: { stage: str(), percent: { type: "number", minimum: 0, maximum: 100 }, note: nullable(str()) },
};
const clip: JsonSchema = {
  type: "object",
  required: ["clip_id", "number", "ref", "title", "start_seconds", "end_seconds", "cut_status", "export_status"],
  properties: {
    clip_id: str({ format: "uuid" }), number: { type: "integer" }, ref: str(), title: nullable(str()), hook: nullable(str()),
    start_seconds: { type: "number" }, end_seconds: { type: "number" }, duration: nullable(str()), score: nullable({ type: "number" }),
    reasons: { type: "array", items: str() }, about: nullable(str()),
    cut_status: str({ enum: ["not_cut", "cutting", "cut", "failed"] }), export_status: str({ enum: ["none", "rendering", "exported", "failed"] }),
    style: nullable(str()), download_url: str({ format: "uri" }), download_expires_at: str({ format: "date-time" }),
  },
};
const episode: JsonSchema = {
  type: "object",
  required: ["episode_id", "name", "status", "duration", "clips", "progress", "livemode"],
  properties: {
    episode_id: str({ format: "uuid" }), name: str(),
    status: str({ enum: ["awaiting_upload", "importing", "transcribing", "searching", "ready", "failed"] }),
    failure: { type: "object", required: ["code", "message"], properties: { code: str(), message: str(), stage: str() } },
    duration: nullable(str({ pattern: "^(\\d+:)?\\d{2}:\\d{2}$", description: "mm:ss (h:mm:ss from an hour)" })),
    duration_seconds: nullable({ type: "number" }), source: str({ enum: ["url", "upload"] }), content_type: str(),
    progress, clips: { type: "array", items: clip }, charged_cents: { type: "integer" }, created_at: str({ format: "date-time" }), livemode,
  },
};
const paymentError: JsonSchema = {
  type: "object", required: ["error"],
  properties: {
    error: {
      type: "object", required: ["code", "message", "needed_cents", "credit_cents"],
      properties: {
        code: str({ enum: ["plan_or_credit_required", "credit_required", "plan_required", "balance_below_zero"] }), message: str(),
        needed_cents: { type: "integer" }, credit_cents: { type: "integer" },
      },
    },
  },
};
const S = {
  empty: { type: "object", additionalProperties: false, properties: {} } as JsonSchema,
  paymentError,
  episode,
  episodeList: { type: "object", required: ["episodes"], properties: { episodes: { type: "array", maxItems: 10, items: episode }, message: str(), livemode } } as JsonSchema,
  episodeCreate: {
    type: "object", additionalProperties: false,
    properties: {
      name: str({ minLength: 1, maxLength: 200 }),
      source_url: str({ format: "uri", pattern: "^https://", maxLength: 2000, description: "A direct https link to an audio or video file; without it, upload the file" }),
      file_name: str({ minLength: 1, maxLength: 255, description: "Name of the file to upload (its extension must be a media type)" }),
      content_type: str({ enum: ["podcast", "stream", "other"] }),
      target_seconds: { type: "number", minimum: 15, maximum: 180, description: "Wanted clip length; clips are within ±20%" },
      about: str({ maxLength: 500, description: "Search brief for the first clip search" }),
    },
  } as JsonSchema,
  episodeCreated: {
    type: "object", required: ["episode_id", "status", "charged_cents", "livemode"],
    properties: {
      episode_id: str({ format: "uuid" }), status: str({ enum: ["awaiting_upload", "importing", "ready"] }),
      upload: {
        type: "object", required: ["method", "url", "headers", "expires_at"],
        properties: { method: { const: "PUT" }, url: str({ format: "uri" }), headers: { type: "object", additionalProperties: str() }, expires_at: str({ format: "date-time" }) },
      },
      ...money, message: str(), livemode,
    },
  } as JsonSchema,
  uploaded: { type: "object", required: ["episode_id", "status", "message"], properties: { episode_id: str({ format: "uuid" }), status: str(), message: str(), livemode } } as JsonSchema,
  exportBody: {
    type: "object", additionalProperties: false, required: ["clips"],
    properties: { clips: { type: "array", minItems: 1, maxItems: 10, items: clipItem }, ...look },
  } as JsonSchema,
  exportAnswer: {
    type: "object", required: ["episode_id", "jobs", "not_started", "charged_cents", "message"],
    properties: {
      episode_id: str({ format: "uuid" }),
      jobs: {
        type: "array",
        items: {
          type: "object", required: ["job_id", "clip_id", "kind", "status", "charged_cents"],
          properties: { job_id: str({ format: "uuid" }), clip_id: str({ format: "uuid" }), number: { type: "integer" }, ref: str(), kind: str({ enum: ["cut", "render"] }), status: str({ enum: ["queued", "running", "completed", "failed"] }), charged_cents: { type: "integer" } },
        },
      },
      not_started: {
        type: "array",
        items: { type: "object", required: ["clip", "reason", "message"], properties: { clip: { anyOf: [{ type: "integer" }, str()] }, reason: str(), message: str(), needed_cents: { type: "integer" } } },
      },
      ...money, message: str(), livemode,
    },
  } as JsonSchema,
  searchBody: {
    type: "object", additionalProperties: false, required: ["about"],
    properties: { about: str({ minLength: 1, maxLength: 500, description: "What to find clips about" }), target_seconds: { type: "number", minimum: 15, maximum: 180 } },
  } as JsonSchema,
  searchAnswer: {
    type: "object", required: ["episode_id", "status", "clips", "charged_cents", "message"],
    properties: { episode_id: str({ format: "uuid" }), status: str({ enum: ["searching", "done"] }), clips: { type: "array", items: clip }, ...money, message: str(), livemode },
  } as JsonSchema,
  job: {
    type: "object", required: ["job_id", "kind", "status", "clip_id", "title", "progress", "livemode"],
    properties: {
      job_id: str({ format: "uuid" }), kind: str({ enum: ["cut", "render"] }), status: str({ enum: ["queued", "running", "completed", "failed"] }),
      clip_id: str({ format: "uuid" }), episode_id: str({ format: "uuid" }), title: nullable(str()), progress: { type: "number", minimum: 0, maximum: 100 },
      download_url: str({ format: "uri", description: "Signed link to the MP4, when completed; valid 7 days, supports Range" }), download_expires_at: str({ format: "date-time" }),
      error: { type: "object", required: ["code", "message"], properties: { code: str(), message: str() } },
      changes: { type: "array" }, charged_cents: { type: "integer" }, created_at: str({ format: "date-time" }), finished_at: nullable(str({ format: "date-time" })), livemode,
    },
  } as JsonSchema,
  restyleBody: { type: "object", additionalProperties: false, minProperties: 1, properties: look } as JsonSchema,
  restyleAnswer: {
    type: "object", required: ["clip_id", "job_id", "status", "changes", "charged_cents", "message"],
    properties: {
      clip_id: str({ format: "uuid" }), job_id: str({ format: "uuid" }), status: str({ enum: ["queued", "running", "completed", "failed"] }),
      changes: { type: "array", items: { type: "object", required: ["field", "to"], properties: { field: str(), from: {}, to: {} } } },
      ...money, message: str(), livemode,
    },
  } as JsonSchema,
  captionsQuery: {
    type: "object",
    properties: {
      at: str({ pattern: "^\\d+(\\.\\d+)?$", description: "Seconds into the clip: the caption on screen then" }),
      from: str({ pattern: "^\\d+(\\.\\d+)?$", description: "Captions ending after this second" }),
      to: str({ pattern: "^\\d+(\\.\\d+)?$", description: "Captions starting before this second" }),
      q: str({ minLength: 1, maxLength: 200, description: "Text the caption contains (case ignored)" }),
      limit: str({ pattern: "^\\d{1,3}$", description: "Most captions returned, 1–200 (default 40)" }),
    },
  } as JsonSchema,
  captions: {
    type: "object", required: ["clip_id", "name", "total", "captions"],
    properties: {
      clip_id: str({ format: "uuid" }), name: str(), total: { type: "integer", minimum: 0 },
      captions: {
        type: "array",
        items: { type: "object", required: ["id", "start_seconds", "end_seconds", "speaker", "text"], properties: { id: { type: "integer" }, start_seconds: { type: "number" }, end_seconds: { type: "number" }, speaker: str(), text: str() } },
      },
      livemode,
    },
  } as JsonSchema,
  styles: {
    type: "object", required: ["styles"],
    properties: { styles: { type: "array", items: { type: "object", required: ["id", "name", "description"], properties: { id: str(), name: str(), description: str() } } }, livemode },
  } as JsonSchema,
};

// ---- test mode: the fixtures of config/testmode.yaml in the live answers' shapes -----------

const _sampleClip = (c: ReturnType<typeof loadTestFixtures>["clips"][number]) => ({
  clip_id: c.clip_id, number: c.number, ref: `c${c.clip_id.slice(-6)}`, title: c.title, hook: c.hook_title ?? null,
  start_seconds: c.start_seconds, end_seconds: c.end_seconds, duration: formatDuration(c.end_seconds - c.start_seconds),
  score: c.score, reasons: ["sample clip (test mode)"], about: null,
  cut_status: c.cut_status as ClipRow["cut_status"], export_status: c.export_status as ClipRow["export_status"], style: c.style,
});

/** Deterministic answers for test keys; an id that is not a sample id is not found. */
const testAnswer = {
  episodeView() {
    const f = loadTestFixtures();
    const e = f.episode;
    return {
      episode_id: e.episode_id, name: e.name, status: e.status, duration: formatDuration(e.duration_seconds), duration_seconds: e.duration_seconds,
      source: "upload", content_type: e.content_type, progress: { stage: e.status, percent: 100, note: null },
      clips: f.clips.map(_sampleClip), charged_cents: 0, created_at: e.created_at, livemode: false,
    };
  },
  episodes() {
    return { episodes: [testAnswer.episodeView()], message: "test mode: the sample episode", livemode: false };
  },
  episode(id: string) {
    if (id.toLowerCase() !== loadTestFixtures().episode.episode_id) throw _notFound("episode", id);
    return testAnswer.episodeView();
  },
  episodeCreated() {
    const e = loadTestFixtures().episode;
    return { episode_id: e.episode_id, status: e.status, charged_cents: 0, message: "test mode: nothing is uploaded, started or charged; this is the sample episode", livemode: false };
  },
  uploaded(id: string) {
    const e = testAnswer.episode(id);
    return { episode_id: e.episode_id, status: e.status, message: "test mode: nothing is imported", livemode: false };
  },
  exported(id: string, wanted: Array<number | string>) {
    testAnswer.episode(id);
    const f = loadTestFixtures();
    const jobs: any[] = [];
    const notStarted: any[] = [];
    for (const w of wanted) {
      const c = f.clips.find((x) => x.number === w || _sampleClip(x).ref === w);
      const job = c && f.jobs.find((j) => j.clip_id === c.clip_id);
      if (c && job) jobs.push({ job_id: job.job_id, clip_id: c.clip_id, number: c.number, ref: _sampleClip(c).ref, kind: job.kind, status: "queued", charged_cents: 0 });
      else notStarted.push({ clip: w, reason: c ? "test_mode" : "not_found", message: c ? "test mode: this sample clip has no sample job" : `the sample episode has no clip ${w}` });
    }
    return { episode_id: id, jobs, not_started: notStarted, charged_cents: 0, message: "test mode: nothing is rendered or charged", livemode: false };
  },
  searched(id: string) {
    const e = testAnswer.episode(id);
    return { episode_id: id, status: "done", clips: e.clips, charged_cents: 0, message: "test mode: the sample clips", livemode: false };
  },
  job(id: string) {
    const f = loadTestFixtures();
    const j = f.jobs.find((x) => x.job_id === id.toLowerCase());
    if (!j) throw _notFound("job", id);
    return {
      job_id: j.job_id, kind: j.kind, status: j.status, clip_id: j.clip_id, episode_id: f.episode.episode_id,
      title: f.clips.find((c) => c.clip_id === j.clip_id)?.title ?? null, progress: j.progress, changes: [], charged_cents: 0,
      created_at: f.episode.created_at, finished_at: f.episode.created_at, livemode: false,
    };
  },
  clip(id: string) {
    const c = loadTestFixtures().clips.find((x) => x.clip_id === id.toLowerCase());
    if (!c) throw _notFound("clip", id);
    return c;
  },
  restyled(id: string, look: ClipLook) {
    const c = testAnswer.clip(id);
    const job = loadTestFixtures().jobs.find((j) => j.clip_id === c.clip_id);
    if (!job) throw new ApiError(409, "clip_not_cut", `sample clip ${id} has not been cut`, { cut_status: c.cut_status });
    const changes = Object.entries(look).map(([field, to]) => ({ field, from: field === "style" ? c.style : null, to }));
    return { clip_id: c.clip_id, job_id: job.job_id, status: "queued", changes, charged_cents: 0, message: "test mode: nothing is rendered", livemode: false };
  },
  captions(id: string) {
    const c = testAnswer.clip(id);
    const segs = loadTestFixtures().transcript.segments;
    const t0 = segs[0]?.start ?? 0;
    const captions = segs.map((s, i) => ({ id: i + 1, start_seconds: +(s.start - t0).toFixed(3), end_seconds: +(s.end - t0).toFixed(3), speaker: s.speaker, text: s.text }));
    return { name: c.title, captions };
  },
};

const id = { id: uuidParam };
const tags = ["episodes"];

function _authOf(ctx: OperationContext) {
  if (!ctx.auth) throw new ApiError(401, "unauthorized", "an API key is required");
  return ctx.auth;
}

function _notFound(what: string, value: string): ApiError {
  return new ApiError(404, "not_found", `no ${what} ${value} on this account`, { field: "id" });
}

/** "mm:ss", or "h:mm:ss" from an hour on. */
export function formatDuration(seconds: number | null | undefined): string | null {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return null;
  const s = Math.round(seconds);
  const two = (n: number) => String(n).padStart(2, "0");
  return s >= 3600 ? `${Math.floor(s / 3600)}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}` : `${two(Math.floor(s / 60))}:${two(s % 60)}`;
}

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "clip";

function _clipLink(ctx: OperationContext, render: Record<string, any> | null | undefined, title: string | undefined) {
  if (!render?.key) return {};
  const link = downloadLink(ctx.services, { key: render.key, name: `${slug(title ?? "clip")}.mp4`, type: "video/mp4", origin: requestOrigin(ctx.event) });
  return { download_url: link.url, download_expires_at: link.expires_at };
}

function toClipView(ctx: OperationContext, c: ClipRow) {
  return {
    clip_id: c.id,
    number: c.number,
    ref: c.ref,
    title: c.data.title ?? null,
    hook: c.data.hook ?? null,
    start_seconds: c.data.start,
    end_seconds: c.data.end,
    duration: formatDuration(c.data.duration),
    score: c.data.score?.value ?? null,
    reasons: c.data.score?.reasons ?? [],
    about: c.data.about ?? null,
    cut_status: c.cut_status,
    export_status: c.export_status,
    style: c.render?.style ?? null,
    ...(c.export_status === "exported" || c.render ? _clipLink(ctx, c.render, c.data.title) : {}),
  };
}

function toEpisodeView(ctx: OperationContext, ep: EpisodeRow, clips: ClipRow[]) {
  const status = EpisodeService.publicStatus(ep);
  const running = ep.run && (ep.run.state === "queued" || ep.run.state === "running");
  const stage = ep.status === "searching" ? "searching" : status;
  const percent = ep.status === "ready" ? 100 : ep.status === "failed" || ep.status === "awaiting_upload" ? 0 : Math.round(ep.run?.progress ?? 0);
  return {
    episode_id: ep.id,
    name: ep.name,
    status,
    ...(ep.failure ? { failure: ep.failure } : {}),
    duration: formatDuration(ep.duration_seconds),
    duration_seconds: ep.duration_seconds,
    source: ep.source_url ? "url" : "upload",
    content_type: ep.options.content_type ?? "podcast",
    progress: { stage, percent, note: running ? (ep.run?.note ?? null) : null },
    clips: clips.map((c) => toClipView(ctx, c)),
    charged_cents: ep.charged_cents,
    created_at: ep.created_at,
    livemode: true,
  };
}

function toJobView(ctx: OperationContext, job: JobRow) {
  const status = EpisodeService.publicJobStatus(job);
  return {
    job_id: job.id,
    kind: job.kind,
    status,
    clip_id: job.clip_id,
    episode_id: job.episode_id,
    title: job.clip_title ?? null,
    progress: status === "completed" ? 100 : status === "queued" ? 0 : Math.round(job.run?.progress ?? 0),
    ...(status === "completed" ? _clipLink(ctx, job.result, job.clip_title ?? undefined) : {}),
    ...(job.error ? { error: job.error } : {}),
    changes: job.changes,
    charged_cents: job.charged_cents,
    created_at: job.created_at,
    finished_at: job.finished_at,
    livemode: true,
  };
}

/** The file name at the end of a link, for an episode given no name. */
function _lastSegment(url: string): string {
  const last = new URL(url).pathname.split("/").pop() ?? "";
  try {
    return decodeURIComponent(last).slice(0, 200);
  } catch {
    return last.slice(0, 200);
  }
}

/** Turns the request's look into service options: style names become ids. */
function _look(ctx: OperationContext, body: Record<string, any>): ClipLook {
  const look: ClipLook = {};
  if (body.style !== undefined) {
    const style = ctx.services.episodes.resolveStyle(body.style);
    if (!style) {
      const known = ctx.services.episodes.styles().map((s) => s.id).join(", ");
      throw new ApiError(400, "invalid_request", `body field "style": unknown style "${body.style}"; use an id or name from GET /api/v1/styles (${known})`, { field: "style" });
    }
    look.style = style;
  }
  for (const k of ["caption_size", "caption_position", "hook_title", "fit", "background"] as const) if (body[k] !== undefined) (look as any)[k] = body[k];
  return look;
}

export const listEpisodes = defineOperation({
  id: "listEpisodes", method: "GET", path: "/api/v1/episodes", summary: "The 10 most recent episodes", scope: "clips.read", tags,
  responses: { 200: { description: "Episodes, newest first", schema: S.episodeList } },
  async handler(ctx) {
    const auth = _authOf(ctx);
    if (!auth.livemode) return testAnswer.episodes();
    const eps = await ctx.services.episodes.list(auth.account.id, 10);
    const views = await Promise.all(eps.map(async (ep) => toEpisodeView(ctx, ep, await ctx.services.episodes.clipsOf(ep.id))));
    return { episodes: views, ...(views.length ? {} : { message: "no episodes yet; POST /api/v1/episodes starts one" }), livemode: true };
  },
});

export const createEpisode = defineOperation({
  id: "createEpisode", method: "POST", path: "/api/v1/episodes", scope: "clips.write", tags, idempotent: true,
  summary: "Start an episode from an https link (source_url), or get an upload address (file_name)",
  body: S.episodeCreate,
  responses: {
    202: { description: "Accepted: importing (source_url) or awaiting_upload (with upload)", schema: S.episodeCreated },
    400: { description: "Invalid request (the field is named)" },
    402: { description: "Payment required: plan_or_credit_required, credit_required, plan_required or balance_below_zero", schema: S.paymentError },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const b = ctx.body as Record<string, any>;
    if (b.source_url && b.file_name) throw new ApiError(400, "invalid_request", `body field "file_name": give source_url or file_name, not both`, { field: "file_name" });
    if (!b.source_url && !b.file_name) throw new ApiError(400, "invalid_request", `body field "file_name" is required when there is no source_url`, { field: "file_name" });
    ctx.event.res.status = 202;
    if (!auth.livemode) return testAnswer.episodeCreated();
    const episodeId = randomUUID();
    const upload = b.file_name
      ? uploadLink(ctx.services, { accountId: auth.account.id, ref: episodeId, fileName: b.file_name, maxBytes: MAX_EPISODE_BYTES, origin: requestOrigin(ctx.event) })
      : undefined;
    const name: string = b.name ?? b.file_name ?? _lastSegment(b.source_url);
    const options = Object.fromEntries(["content_type", "target_seconds", "about"].filter((k) => b[k] !== undefined).map((k) => [k, b[k]]));
    const ep = await ctx.services.episodes.create({
      id: episodeId, accountId: auth.account.id, name: name || "Episode", sourceUrl: b.source_url, options,
      upload: upload ? { key: upload.key, name: upload.key.split("/").pop()! } : undefined,
    });
    return {
      episode_id: ep.id,
      status: ep.status,
      ...(upload ? { upload: { method: upload.method, url: upload.url, headers: upload.headers, expires_at: upload.expires_at } } : {}),
      charged_cents: 0,
      message: upload
        ? "PUT the file to upload.url with upload.headers, then POST /api/v1/episodes/{id}/uploaded. The episode is charged when its clip search starts."
        : "importing from source_url; poll GET /api/v1/episodes/{id}. The episode is charged when its clip search starts.",
      livemode: true,
    };
  },
});

export const getEpisode = defineOperation({
  id: "getEpisode", method: "GET", path: "/api/v1/episodes/{id}", summary: "An episode with its progress and clips", scope: "clips.read", tags, params: id,
  responses: { 200: { description: "The episode", schema: S.episode }, 404: { description: "Not on this account" } },
  async handler(ctx) {
    const auth = _authOf(ctx);
    if (!auth.livemode) return testAnswer.episode(ctx.params.id!);
    const found = await ctx.services.episodes.getWithClips(auth.account.id, ctx.params.id!);
    if (!found) throw _notFound("episode", ctx.params.id!);
    return toEpisodeView(ctx, found.episode, found.clips);
  },
});

export const episodeUploaded = defineOperation({
  id: "episodeUploaded", method: "POST", path: "/api/v1/episodes/{id}/uploaded", scope: "clips.write", tags, params: id, idempotent: true,
  summary: "Say the upload is complete: the import starts",
  body: S.empty,
  responses: {
    200: { description: "Importing", schema: S.uploaded },
    402: { description: "Payment required", schema: S.paymentError },
    404: { description: "Not on this account" },
    409: { description: "upload_missing: nothing was uploaded yet" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    if (!auth.livemode) return testAnswer.uploaded(ctx.params.id!);
    const { episode, started } = await ctx.services.episodes.markUploaded(auth.account.id, ctx.params.id!);
    const status = EpisodeService.publicStatus(episode);
    return {
      episode_id: episode.id,
      status,
      message: started ? "upload received; importing, then transcribing and searching for clips" : `nothing to do: the episode is ${status} already`,
      livemode: true,
    };
  },
});

export const exportClips = defineOperation({
  id: "exportClips", method: "POST", path: "/api/v1/episodes/{id}/clips", scope: "clips.write", tags, params: id, idempotent: true,
  summary: "Cut and render clips of an episode: one job per clip",
  body: S.exportBody,
  responses: {
    202: { description: "Jobs started; clips not started are listed with reasons and not charged", schema: S.exportAnswer },
    400: { description: "Invalid request, or no clip could be started" },
    402: { description: "Payment required", schema: S.paymentError },
    404: { description: "Not on this account" },
    409: { description: "episode_not_ready" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const look = _look(ctx, ctx.body);
    ctx.event.res.status = 202;
    if (!auth.livemode) return testAnswer.exported(ctx.params.id!, ctx.body.clips);
    const r = await ctx.services.episodes.exportClips(auth.account.id, ctx.params.id!, { clips: ctx.body.clips, look });
    return {
      episode_id: ctx.params.id,
      jobs: r.jobs.map((j) => ({ job_id: j.job_id, clip_id: j.clip_id, number: j.number, ref: j.ref, kind: j.kind, status: j.status, charged_cents: j.charged_cents })),
      not_started: r.not_started,
      charged_cents: r.charged_cents,
      message: `${r.jobs.length} job${r.jobs.length === 1 ? "" : "s"} started${r.not_started.length ? `; ${r.not_started.length} not started (see not_started)` : ""}; poll GET /api/v1/jobs/{id}`,
      livemode: true,
    };
  },
});

export const searchEpisode = defineOperation({
  id: "searchEpisode", method: "POST", path: "/api/v1/episodes/{id}/search", scope: "clips.write", tags, params: id, idempotent: true,
  summary: "Search a ready episode for more clips about a topic",
  body: S.searchBody,
  responses: {
    200: { description: "done: this brief was searched before; its clips", schema: S.searchAnswer },
    202: { description: "searching: the new clips join the episode when it is ready again", schema: S.searchAnswer },
    402: { description: "Payment required", schema: S.paymentError },
    404: { description: "Not on this account" },
    409: { description: "episode_not_ready or search_in_progress" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    if (!auth.livemode) {
      ctx.event.res.status = 200;
      return testAnswer.searched(ctx.params.id!);
    }
    const r = await ctx.services.episodes.search(auth.account.id, ctx.params.id!, ctx.body);
    ctx.event.res.status = r.status === "searching" ? 202 : 200;
    return {
      episode_id: ctx.params.id,
      status: r.status,
      clips: r.clips.map((c) => toClipView(ctx, c)),
      charged_cents: 0,
      message: r.status === "searching" ? "searching; poll GET /api/v1/episodes/{id} until it is ready again" : "this brief was searched before; these are its clips",
      livemode: true,
    };
  },
});

export const getJob = defineOperation({
  id: "getJob", method: "GET", path: "/api/v1/jobs/{id}", summary: "A cut or render job; download_url once completed", scope: "clips.read", tags: ["jobs"], params: id,
  responses: { 200: { description: "The job", schema: S.job }, 404: { description: "Not on this account" } },
  async handler(ctx) {
    const auth = _authOf(ctx);
    if (!auth.livemode) return testAnswer.job(ctx.params.id!);
    const job = await ctx.services.episodes.getJob(auth.account.id, ctx.params.id!);
    if (!job) throw _notFound("job", ctx.params.id!);
    return toJobView(ctx, job);
  },
});

export const restyleClip = defineOperation({
  id: "restyleClip", method: "PATCH", path: "/api/v1/clips/{id}", scope: "clips.write", tags: ["clips"], params: id, idempotent: true,
  summary: "Restyle a cut clip (style, caption size and position, hook title; fit or background cut it again)",
  body: S.restyleBody,
  responses: {
    202: { description: "A render job started", schema: S.restyleAnswer },
    400: { description: "Invalid request" },
    402: { description: "Payment required", schema: S.paymentError },
    404: { description: "Not on this account" },
    409: { description: "clip_not_cut" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const look = _look(ctx, ctx.body);
    ctx.event.res.status = 202;
    if (!auth.livemode) return testAnswer.restyled(ctx.params.id!, look);
    const { job, changes } = await ctx.services.episodes.restyle(auth.account.id, ctx.params.id!, look);
    return {
      clip_id: ctx.params.id,
      job_id: job.job_id,
      status: job.status,
      changes,
      charged_cents: job.charged_cents,
      message: `${job.kind === "cut" ? "cutting and rendering" : "rendering"} the clip again with ${changes.map((c) => c.field).join(", ")}; poll GET /api/v1/jobs/${job.job_id}`,
      livemode: true,
    };
  },
});

export const clipCaptions = defineOperation({
  id: "clipCaptions", method: "GET", path: "/api/v1/clips/{id}/captions", scope: "clips.read", tags: ["clips"], params: id,
  summary: "A clip's captions on its own timeline, filtered by time or text",
  query: S.captionsQuery,
  responses: { 200: { description: "Captions", schema: S.captions }, 400: { description: "Invalid query" }, 404: { description: "Not on this account" } },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const q = _captionQuery(ctx.query);
    let clipId = ctx.params.id!;
    let name: string;
    let all: Array<{ id: number; start_seconds: number; end_seconds: number; speaker: string; text: string }>;
    if (!auth.livemode) ({ name, captions: all } = testAnswer.captions(clipId));
    else {
      const r = await ctx.services.episodes.captions(auth.account.id, clipId);
      clipId = r.clip.id;
      name = r.clip.data.title ?? `Clip ${r.clip.number}`;
      all = r.captions;
    }
    let list = all;
    if (q.at !== undefined) list = list.filter((c) => c.start_seconds <= q.at! && q.at! < c.end_seconds + 1e-9);
    if (q.from !== undefined) list = list.filter((c) => c.end_seconds > q.from!);
    if (q.to !== undefined) list = list.filter((c) => c.start_seconds < q.to!);
    if (q.q) list = list.filter((c) => c.text.toLowerCase().includes(q.q!.toLowerCase()));
    return { clip_id: clipId, name, total: list.length, captions: list.slice(0, q.limit), livemode: auth.livemode };
  },
});

/** Query values arrive as strings; the schema checks their shape, this their range. */
function _captionQuery(raw: Record<string, string | undefined>): { at?: number; from?: number; to?: number; q?: string; limit: number } {
  const num = (k: "at" | "from" | "to") => (raw[k] === undefined ? undefined : Number(raw[k]));
  const limit = raw.limit === undefined ? 40 : Number(raw.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new ApiError(400, "invalid_request", `query field "limit" must be a whole number from 1 to 200`, { field: "limit" });
  const out = { at: num("at"), from: num("from"), to: num("to"), q: raw.q, limit };
  if (out.from !== undefined && out.to !== undefined && out.from > out.to) throw new ApiError(400, "invalid_request", `query field "to" must not be before "from"`, { field: "to" });
  return out;
}

export const listStyles = defineOperation({
  id: "listStyles", method: "GET", path: "/api/v1/styles", summary: "Caption styles for clips", scope: "clips.read", tags: ["clips"],
  responses: { 200: { description: "Styles", schema: S.styles } },
  handler(ctx) {
    return { styles: ctx.services.episodes.styles(), livemode: _authOf(ctx).livemode };
  },
});

export const ACCOUNT_OPERATIONS: Operation[] = [
  listEpisodes, createEpisode, getEpisode, episodeUploaded, exportClips, searchEpisode, getJob, restyleClip, clipCaptions, listStyles,
];
