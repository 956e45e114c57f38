/**
 * The account API's episodes, clips, jobs, captions and styles (/api/v1). Handlers are thin: they
 * check what JSON Schema cannot (style names, field combinations), call the episode service, and
 * shape answers; links are signed here. Test keys (livemode false) get the sample data of
 * facade/testmode.ts and never reach the service: nothing is started or charged for them.
 */
import { randomUUID } from "node:crypto";
import type { ClipLook, EpisodeRow, ExportResult, NewEpisode, RestyleResult, SearchResult } from "../../daemon/account/episodes.js";
import { EpisodeService, MAX_EPISODE_BYTES } from "../../daemon/account/episodes.js";
import { changeLines, LOOK_FIELDS } from "../../daemon/account/clip-look.js";
import { ApiError } from "../errors.js";
import { defineOperation, settleAnswer, uuidParam, type Operation, type OperationContext } from "../registry.js";
import { assertMediaFileName, requestOrigin, uploadLink } from "../uploads.js";
import { loadTestFixtures, TEST_UPLOAD_MAX_BYTES } from "../testmode.js";
import { checkSourceUrl } from "./transcripts.js";
import { S } from "./_account-schemas.js";
import { toClipView, toEpisodeView, toJobView } from "./_account-views.js";
import { _notFound, testAnswer } from "./_account-testmode.js";

const id = { id: uuidParam };
const tags = ["episodes"];

function _authOf(ctx: OperationContext) {
  if (!ctx.auth) throw new ApiError(401, "unauthorized", "an API key is required");
  return ctx.auth;
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
  id: "createEpisode", method: "POST", path: "/api/v1/episodes", scope: "clips.write", tags, idempotent: true, bodyRequired: false,
  summary: "Start an episode from an https link (source_url), or get an upload address (file_name)",
  body: S.episodeCreate,
  responses: {
    202: { description: "Accepted: importing (source_url) or awaiting_upload (with upload)", schema: S.episodeCreated },
    400: { description: "Invalid request (the field is named)" },
    402: { description: "Payment required: plan_or_credit_required, credit_required, plan_required or balance_below_zero", schema: S.paymentError },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const b = (ctx.body ?? {}) as Record<string, any>;
    if (b.source_url && b.file_name) throw new ApiError(400, "invalid_request", `body field "file_name": give source_url or file_name, not both`, { field: "file_name" });
    // Test keys are checked exactly like live ones; only what happens next differs.
    if (b.file_name !== undefined) assertMediaFileName(b.file_name);
    const sourceUrl = b.source_url === undefined ? undefined : (await checkSourceUrl(b.source_url, ctx.services.config, "source_url")).href;
    ctx.status = 202;
    const episodeId = auth.livemode ? randomUUID() : loadTestFixtures().episode.episode_id;
    const upload = sourceUrl
      ? undefined
      : uploadLink(ctx.services, { accountId: auth.account.id, ref: episodeId, fileName: b.file_name, maxBytes: auth.livemode ? MAX_EPISODE_BYTES : TEST_UPLOAD_MAX_BYTES, origin: ctx.caller.linkOrigin, test: !auth.livemode });
    const uploadView = upload ? { upload: { method: upload.method, url: upload.url, headers: upload.headers, expires_at: upload.expires_at } } : {};
    if (!auth.livemode) return { ...testAnswer.episodeCreated(), ...uploadView };
    const name: string = b.name ?? b.file_name ?? (sourceUrl ? _lastSegment(sourceUrl) : "");
    const options = Object.fromEntries(["content_type", "target_seconds", "about"].filter((k) => b[k] !== undefined).map((k) => [k, b[k]]));
    const hook = settleAnswer(ctx, 202, (ep: NewEpisode) => ({
      episode_id: ep.id,
      status: ep.status,
      ...uploadView,
      charged_cents: 0,
      message: upload
        ? "PUT the file to upload.url with upload.headers, then POST /api/v1/episodes/{id}/uploaded. The episode is charged when its clip search starts."
        : "importing from source_url; poll GET /api/v1/episodes/{id}. The episode is charged when its clip search starts.",
      livemode: true,
    }));
    await ctx.services.episodes.create({
      id: episodeId, accountId: auth.account.id, name: name || "Untitled episode", sourceUrl, options,
      upload: upload ? { key: upload.key, name: upload.key.split("/").pop()! } : undefined,
      origin: ctx.caller.surface,
    }, hook.within);
    return hook.answer;
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
  id: "episodeUploaded", method: "POST", path: "/api/v1/episodes/{id}/uploaded", scope: "clips.write", tags, params: id, idempotent: true, bodyRequired: false,
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
    const hook = settleAnswer(ctx, 200, ({ episode, started }: { episode: EpisodeRow; started: boolean }) => {
      const status = EpisodeService.publicStatus(episode);
      return {
        episode_id: episode.id,
        status,
        message: started ? "upload received; importing, then transcribing and searching for clips" : `nothing to do: the episode is ${status} already`,
        livemode: true,
      };
    });
    await ctx.services.episodes.markUploaded(auth.account.id, ctx.params.id!, ctx.caller.surface, hook.within);
    return hook.answer;
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
    ctx.status = 202;
    if (!auth.livemode) return testAnswer.exported({ services: ctx.services, origin: ctx.caller.linkOrigin }, ctx.params.id!, ctx.body.clips);
    const hook = settleAnswer(ctx, 202, (r: ExportResult) => ({
      episode_id: ctx.params.id,
      jobs: r.jobs.map((j) => ({ job_id: j.job_id, clip_id: j.clip_id, number: j.number, ref: j.ref, kind: j.kind, status: j.status, charged_cents: j.charged_cents })),
      not_started: r.not_started,
      charged_cents: r.charged_cents,
      message: `${r.jobs.length} job${r.jobs.length === 1 ? "" : "s"} started${r.not_started.length ? `; ${r.not_started.length} not started (see not_started)` : ""}; poll GET /api/v1/jobs/{id}`,
      livemode: true,
    }));
    await ctx.services.episodes.exportClips(auth.account.id, ctx.params.id!, { clips: ctx.body.clips, look, origin: ctx.caller.surface }, hook.within);
    return hook.answer;
  },
});

export const searchEpisode = defineOperation({
  id: "searchEpisode", method: "POST", path: "/api/v1/episodes/{id}/search", scope: "clips.write", tags, params: id, idempotent: true,
  summary: "Search a ready episode for more clips about a topic",
  body: S.searchBody,
  responses: {
    202: { description: "searching: the new clips join the episode when it is ready again; done: this brief was searched before, and these are its clips", schema: S.searchAnswer },
    402: { description: "Payment required", schema: S.paymentError },
    404: { description: "Not on this account" },
    409: { description: "episode_not_ready or search_in_progress" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    ctx.status = 202;
    if (!auth.livemode) return testAnswer.searched(ctx.params.id!);
    const hook = settleAnswer(ctx, 202, (r: SearchResult) => ({
      episode_id: ctx.params.id,
      status: r.status,
      clips: r.clips.map((c) => toClipView(ctx, c)),
      charged_cents: 0,
      message: r.status === "searching" ? "searching; poll GET /api/v1/episodes/{id} until it is ready again" : "this brief was searched before; these are its clips",
      livemode: true,
    }));
    await ctx.services.episodes.search(auth.account.id, ctx.params.id!, { ...ctx.body, origin: ctx.caller.surface }, hook.within);
    return hook.answer;
  },
});

export const getJob = defineOperation({
  id: "getJob", method: "GET", path: "/api/v1/jobs/{id}", summary: "A cut or render job; download_url once completed", scope: "clips.read", tags: ["jobs"], params: id,
  responses: { 200: { description: "The job", schema: S.job }, 404: { description: "Not on this account" } },
  async handler(ctx) {
    const auth = _authOf(ctx);
    if (!auth.livemode) return testAnswer.job({ services: ctx.services, origin: ctx.caller.linkOrigin }, ctx.params.id!);
    const job = await ctx.services.episodes.getJob(auth.account.id, ctx.params.id!);
    if (!job) throw _notFound("job", ctx.params.id!);
    return toJobView(ctx, job);
  },
});

export const restyleClip = defineOperation({
  id: "restyleClip", method: "PATCH", path: "/api/v1/clips/{id}", scope: "clips.write", tags: ["clips"], params: id, idempotent: true,
  summary: "Restyle a cut clip: what the body names changes, the rest of its look stays (fit or background cut it again)",
  body: S.restyleBody,
  responses: {
    202: { description: "A render job started; or, when nothing resolves to a new value, nothing started (changes empty, job_id the job that made the current look)", schema: S.restyleAnswer },
    400: { description: "Invalid request; a body naming no look field (save_as_default alone included) names field \"body\"" },
    402: { description: "Payment required", schema: S.paymentError },
    404: { description: "Not on this account" },
    409: { description: "clip_not_cut" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const body = (ctx.body ?? {}) as Record<string, any>;
    const look = _look(ctx, body);
    // save_as_default saves the look this restyle makes, so a body with nothing else has nothing to save.
    if (!Object.keys(look).length) {
      throw new ApiError(400, "invalid_request", `body names nothing to change: give at least one of ${LOOK_FIELDS.join(", ")}${body.save_as_default !== undefined ? " (save_as_default only saves the look a restyle makes)" : ""}`, { field: "body" });
    }
    ctx.status = 202;
    if (!auth.livemode) return testAnswer.restyled(ctx.params.id!, look, ctx.services.episodes.looks.serviceLook());
    const saving = body.save_as_default === true;
    const saved = saving ? "; saved as the account's defaults for new clips" : "";
    const hook = settleAnswer(ctx, 202, ({ job, changes }: RestyleResult) => {
      const lines = changeLines(changes);
      return {
        clip_id: ctx.params.id,
        job_id: job.job_id,
        status: job.status,
        changes: lines,
        charged_cents: job.charged_cents,
        message: lines.length
          ? `${job.kind === "cut" ? "cutting and rendering" : "rendering"} the clip again (${lines.join("; ")})${saved}; poll GET /api/v1/jobs/${job.job_id}`
          : `nothing to change: the clip already looks like this, so nothing started and nothing was charged${saved}; job_id is the job that made this look`,
        livemode: true,
      };
    });
    await ctx.services.episodes.restyle(auth.account.id, ctx.params.id!, look, { saveAsDefault: saving, origin: ctx.caller.surface }, hook.within);
    return hook.answer;
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
    let all: Array<{ id: string; start_seconds: number; end_seconds: number; speaker: string; text: string }>;
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
