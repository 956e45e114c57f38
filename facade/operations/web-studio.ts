/**
 * The episode studio's web-only calls (docs/website.md, "Web-only calls of the studio"): the
 * stored source as a signed, Range-capable link for the page's player, the transcript's lines,
 * and three images drawn once and kept (the waveform, a clip's poster, a style's preview),
 * answered as image bytes that the browser may keep a day. The work is daemon/studio/'s.
 */
import { Type } from "@sinclair/typebox";
import type { StoredImage } from "../../daemon/studio/cache.js";
import { defineOperation, uuidParam, type Operation } from "../registry.js";
import { contentTypeFor, downloadLink } from "../uploads.js";
import { sessionOf } from "./web-account.js";

const web = { surfaces: ["web" as const], tags: ["web"], scope: null, auth: "session" as const };
const notReady = "not_ready: the episode has nothing stored for this yet (its status is in the error)";

const media = defineOperation({
  id: "getEpisodeMedia",
  method: "GET",
  path: "/api/v1/episodes/{id}/media",
  ...web,
  params: { id: uuidParam },
  summary: "A signed link (7 days, HTTP Range) to the episode's stored source, for the page's player",
  responses: {
    200: {
      description:
        "The source's link, type and kind (audio or video), the length, and each clip's pieces in source seconds",
      schema: {
        type: "object",
        required: ["source", "duration_seconds", "clips"],
        properties: {
          source: {
            type: "object",
            required: ["url", "type", "kind", "expires_at"],
            properties: {
              url: { type: "string" },
              type: { type: "string" },
              kind: { enum: ["audio", "video", null] },
              expires_at: { type: "string" },
            },
          },
          duration_seconds: { type: ["number", "null"] },
          clips: {
            type: "array",
            items: {
              type: "object",
              required: ["clip_id", "pieces"],
              properties: {
                clip_id: { type: "string" },
                pieces: {
                  type: "array",
                  items: { type: "object", properties: { start: { type: "number" }, end: { type: "number" } } },
                },
              },
            },
          },
        },
      },
    },
    404: { description: "No such episode on this account" },
    409: { description: notReady },
  },
  async handler(ctx) {
    const m = await ctx.services.studio.media(sessionOf(ctx).accountId, ctx.params.id);
    const type = contentTypeFor(m.name);
    const link = downloadLink(ctx.services, { key: m.key, name: m.name, type, origin: ctx.caller.linkOrigin });
    return {
      source: { url: link.url, type, kind: m.kind, expires_at: link.expires_at },
      duration_seconds: m.duration,
      clips: m.clips,
    };
  },
});

const transcript = defineOperation({
  id: "getEpisodeTranscript",
  method: "GET",
  path: "/api/v1/episodes/{id}/transcript",
  ...web,
  params: { id: uuidParam },
  summary: "The episode's transcript as timed lines, filtered by q (case-insensitive); at most 2000 lines",
  query: Type.Object({ q: Type.Optional(Type.String({ maxLength: 200 })) }),
  responses: {
    200: {
      description:
        "{segments: [{start, end, text}], total, limit, truncated}: total counts " +
        "every matching line, segments holds the first `limit`",
    },
    404: { description: "No such episode on this account" },
    409: { description: "not_ready: the episode is not transcribed yet" },
  },
  async handler(ctx) {
    return ctx.services.studio.transcript(sessionOf(ctx).accountId, ctx.params.id, ctx.query.q?.trim() || undefined);
  },
});

const waveform = defineOperation({
  id: "getEpisodeWaveform",
  method: "GET",
  path: "/api/v1/episodes/{id}/waveform.png",
  ...web,
  params: { id: uuidParam },
  summary: "A 1200×120 PNG strip of the source's loudness (transparent background), drawn once and kept",
  responses: {
    200: { description: "image/png" },
    304: { description: "Not modified (If-None-Match)" },
    404: { description: "No such episode on this account" },
    409: { description: notReady },
  },
  async handler(ctx) {
    return imageAnswer(ctx.caller.request, await ctx.services.studio.waveform(sessionOf(ctx).accountId, ctx.params.id));
  },
});

const poster = defineOperation({
  id: "getClipPoster",
  method: "GET",
  path: "/api/v1/clips/{id}/poster.jpg",
  ...web,
  params: { id: uuidParam },
  summary:
    "A 270×480 JPEG of the clip: a frame at its first piece's start, or a card with its title for audio-only episodes",
  responses: {
    200: { description: "image/jpeg" },
    304: { description: "Not modified (If-None-Match)" },
    404: { description: "No such clip on this account" },
    409: { description: notReady },
  },
  async handler(ctx) {
    return imageAnswer(ctx.caller.request, await ctx.services.studio.poster(sessionOf(ctx).accountId, ctx.params.id));
  },
});

const preview = defineOperation({
  id: "getStylePreview",
  method: "GET",
  path: "/api/v1/episodes/{id}/styles/{style}/preview.png",
  ...web,
  params: { id: uuidParam, style: Type.String({ minLength: 1, maxLength: 40 }) },
  summary:
    "A 360×640 PNG of the style's captions, as real clips burn them, on a 9:16 " +
    "frame of this episode with a line it speaks",
  responses: {
    200: { description: "image/png" },
    304: { description: "Not modified (If-None-Match)" },
    404: { description: "No such episode on this account, or no such style (field style; `styles` lists them)" },
    409: { description: "not_ready: the episode has no stored source or transcript yet" },
  },
  async handler(ctx) {
    return imageAnswer(
      ctx.caller.request,
      await ctx.services.studio.stylePreview(sessionOf(ctx).accountId, ctx.params.id, ctx.params.style),
    );
  },
});

/** The image's bytes, kept a day by this browser only, or 304 when it has these bytes already. */
function imageAnswer(req: Request | undefined, img: StoredImage): Response {
  const headers = {
    "content-type": img.type,
    "cache-control": "private, max-age=86400",
    etag: img.etag,
    "x-content-type-options": "nosniff",
  };
  const given = req?.headers.get("if-none-match");
  if (given && given.split(",").some((t) => t.trim().replace(/^W\//, "") === img.etag))
    return new Response(null, { status: 304, headers });
  return new Response(new Uint8Array(img.bytes), {
    status: 200,
    headers: { ...headers, "content-length": String(img.bytes.length) },
  });
}

export const WEB_STUDIO_OPERATIONS: Operation[] = [media, transcript, waveform, poster, preview];
