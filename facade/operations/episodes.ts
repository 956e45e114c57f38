/**
 * The account API's episodes (/api/v1/episodes): make one from a link or an upload, read it, say
 * the upload is done, and search it again. Handlers are thin: they check what JSON Schema cannot,
 * call the episode service and shape answers. Test keys (livemode false) get the sample data of
 * facade/testmode.ts and never reach the service: nothing is started or charged for them.
 */
import { randomUUID } from "node:crypto";
import type { EpisodeRow, NewEpisode, SearchResult } from "../../daemon/account/episodes.js";
import { EpisodeService, MAX_EPISODE_BYTES } from "../../daemon/account/episodes.js";
import { MAX_EPISODE_PAGE } from "../../daemon/account/episode-lifecycle.js";
import { ApiError } from "../errors.js";
import { readCacheOf } from "../read-cache.js";
import { defineOperation, settleAnswer, uuidParam } from "../registry.js";
import { assertMediaFileName, episodeUploadLink } from "../uploads.js";
import { loadTestFixtures, TEST_UPLOAD_MAX_BYTES } from "../testmode.js";
import { checkSourceUrl } from "./transcripts.js";
import { R } from "./_account-requests.js";
import { S } from "./_account-schemas.js";
import { toEpisodeView, toClipView } from "./_account-views.js";
import { _authOf, _notFound, testAnswer } from "./_account-testmode.js";
import { closeUpload } from "../upload-closed.js";

const id = { id: uuidParam };
const tags = ["episodes"];

/** The file name at the end of a link, for an episode given no name. */
function _lastSegment(url: string): string {
  const last = new URL(url).pathname.split("/").pop() ?? "";
  try {
    return decodeURIComponent(last).slice(0, 200);
  } catch {
    return last.slice(0, 200);
  }
}

export const listEpisodes = defineOperation({
  id: "listEpisodes",
  method: "GET",
  path: "/api/v1/episodes",
  summary: "The account's episodes, newest first, 10 a page (next_cursor pages on)",
  scope: "clips.read",
  tags,
  query: R.episodeListQuery,
  extension: "cursor, limit and next_cursor page the list; the published list is its first 10 episodes",
  responses: { 200: { description: "Episodes, newest first", schema: S.episodeList } },
  async handler(ctx) {
    const auth = _authOf(ctx);
    if (!auth.livemode) return { ...testAnswer.episodes(), next_cursor: null };
    const q = ctx.query;
    const limit = q.limit === undefined ? undefined : Number(q.limit);
    if (limit !== undefined && (limit < 1 || limit > MAX_EPISODE_PAGE))
      throw new ApiError(400, "invalid_request", `query field "limit" must be 1 to ${MAX_EPISODE_PAGE}`, {
        field: "limit",
      });
    const page = await ctx.services.episodes.lifecycle.page(auth.account.id, {
      cursor: q.cursor,
      limit,
    });
    const views = await Promise.all(
      page.episodes.map(async (ep) => toEpisodeView(ctx, ep, await ctx.services.episodes.clipsOf(ep.id))),
    );
    return {
      episodes: views,
      next_cursor: page.next_cursor,
      ...(views.length || q.cursor ? {} : { message: "no episodes yet; POST /api/v1/episodes starts one" }),
      ...(page.next_cursor ? { message: `more episodes: GET /api/v1/episodes?cursor=${page.next_cursor}` } : {}),
      livemode: true,
    };
  },
});

export const createEpisode = defineOperation({
  id: "createEpisode",
  method: "POST",
  path: "/api/v1/episodes",
  scope: "clips.write",
  tags,
  idempotent: true,
  bodyRequired: false,
  summary: "Start an episode from an https link (source_url), or get an upload address (file_name)",
  body: R.episodeCreate,
  responses: {
    202: { description: "Accepted: importing (source_url) or awaiting_upload (with upload)", schema: S.episodeCreated },
    400: { description: "Invalid request (the field is named)" },
    402: {
      description: "Payment required: plan_or_credit_required, credit_required, plan_required or balance_below_zero",
      schema: S.paymentError,
    },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const b = ctx.body;
    if (b.source_url && b.file_name)
      throw new ApiError(400, "invalid_request", `body field "file_name": give source_url or file_name, not both`, {
        field: "file_name",
      });
    // Test keys are checked exactly like live ones; only what happens next differs.
    if (b.file_name !== undefined) assertMediaFileName(b.file_name);
    const sourceUrl =
      b.source_url === undefined
        ? undefined
        : (await checkSourceUrl(b.source_url, ctx.services.config, "source_url")).href;
    ctx.status = 202;
    const episodeId = auth.livemode ? randomUUID() : loadTestFixtures().episode.episode_id;
    const upload = sourceUrl
      ? undefined
      : await episodeUploadLink(ctx.services, {
          accountId: auth.account.id,
          ref: episodeId,
          fileName: b.file_name,
          maxBytes: auth.livemode ? MAX_EPISODE_BYTES : TEST_UPLOAD_MAX_BYTES,
          origin: ctx.caller.linkOrigin,
          test: !auth.livemode,
        });
    const uploadView = upload
      ? { upload: { method: upload.method, url: upload.url, headers: upload.headers, expires_at: upload.expires_at } }
      : {};
    if (!auth.livemode) return { ...testAnswer.episodeCreated(), ...uploadView };
    const name: string = b.name ?? b.file_name ?? (sourceUrl ? _lastSegment(sourceUrl) : "");
    const { content_type, target_seconds, about } = b;
    const options = {
      ...(content_type !== undefined ? { content_type } : {}),
      ...(target_seconds !== undefined ? { target_seconds } : {}),
      ...(about !== undefined ? { about } : {}),
    };
    const hook = settleAnswer(ctx, 202, (ep: NewEpisode) => ({
      episode_id: ep.id,
      status: ep.status,
      ...uploadView,
      charged_cents: 0,
      message: upload
        ? "PUT the file to upload.url with upload.headers, then POST /api/v1/episodes/{id}/uploaded. " +
          "The episode is charged when its clip search starts."
        : "importing from source_url; poll GET /api/v1/episodes/{id}. The episode " +
          "is charged when its clip search starts.",
      livemode: true,
    }));
    await ctx.services.episodes.create(
      {
        id: episodeId,
        accountId: auth.account.id,
        name: name || "Untitled episode",
        sourceUrl,
        options,
        upload: upload ? { key: upload.key, name: upload.key.split("/").pop()! } : undefined,
        origin: ctx.caller.surface,
      },
      hook.within,
    );
    return hook.answer;
  },
});

export const getEpisode = defineOperation({
  id: "getEpisode",
  method: "GET",
  path: "/api/v1/episodes/{id}",
  summary: "An episode with its progress and clips",
  scope: "clips.read",
  tags,
  params: id,
  responses: { 200: { description: "The episode", schema: S.episode }, 404: { description: "Not on this account" } },
  async handler(ctx) {
    const auth = _authOf(ctx);
    if (!auth.livemode) return testAnswer.episode(ctx.params.id);
    // Polled often: the rows are kept until anything they show may have changed (read-cache.ts).
    const found = await readCacheOf(ctx.services.db).read(`episode:${auth.account.id}:${ctx.params.id}`, () =>
      ctx.services.episodes.getWithClips(auth.account.id, ctx.params.id),
    );
    if (!found) throw _notFound("episode", ctx.params.id);
    return toEpisodeView(ctx, found.episode, found.clips);
  },
});

export const episodeUploaded = defineOperation({
  id: "episodeUploaded",
  method: "POST",
  path: "/api/v1/episodes/{id}/uploaded",
  scope: "clips.write",
  tags,
  params: id,
  idempotent: true,
  bodyRequired: false,
  summary: "Say the upload is complete: the import starts",
  body: R.empty,
  responses: {
    200: { description: "Importing", schema: S.uploaded },
    402: { description: "Payment required", schema: S.paymentError },
    404: { description: "Not on this account" },
    409: { description: "upload_missing: nothing was uploaded yet" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    if (!auth.livemode) return testAnswer.uploaded(ctx.params.id);
    const hook = settleAnswer(ctx, 200, ({ episode, started }: { episode: EpisodeRow; started: boolean }) => {
      const status = EpisodeService.publicStatus(episode);
      return {
        episode_id: episode.id,
        status,
        message: started
          ? "upload received; importing, then transcribing and searching for clips"
          : `nothing to do: the episode is ${status} already`,
        livemode: true,
      };
    });
    // The upload address closes in the transaction that starts the import (facade/upload-closed.ts).
    await ctx.services.episodes.markUploaded(auth.account.id, ctx.params.id, ctx.caller.surface, async (tx, r) => {
      await closeUpload(tx, r.episode.id);
      await hook.within(tx, r);
    });
    return hook.answer;
  },
});

export const searchEpisode = defineOperation({
  id: "searchEpisode",
  method: "POST",
  path: "/api/v1/episodes/{id}/search",
  scope: "clips.write",
  tags,
  params: id,
  idempotent: true,
  summary: "Search a ready episode for more clips about a topic",
  body: R.searchBody,
  // The published description: "Body required (object; no field is marked required)". {} will do.
  bodyRequired: true,
  responses: {
    202: {
      description:
        "searching: the new clips join the episode when it is ready again; done: " +
        "this brief was searched before, and these are its clips",
      schema: S.searchAnswer,
    },
    402: { description: "Payment required", schema: S.paymentError },
    404: { description: "Not on this account" },
    409: { description: "episode_not_ready or search_in_progress" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    ctx.status = 202;
    if (!auth.livemode) return testAnswer.searched(ctx.params.id);
    const hook = settleAnswer(ctx, 202, (r: SearchResult) => ({
      episode_id: ctx.params.id,
      status: r.status,
      clips: r.clips.map((c) => toClipView(ctx, c)),
      charged_cents: 0,
      message:
        r.status === "searching"
          ? "searching; poll GET /api/v1/episodes/{id} until it is ready again"
          : "this brief was searched before; these are its clips",
      livemode: true,
    }));
    await ctx.services.episodes.search(
      auth.account.id,
      ctx.params.id,
      { ...ctx.body, origin: ctx.caller.surface },
      hook.within,
    );
    return hook.answer;
  },
});
