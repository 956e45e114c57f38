/**
 * Results pages: the site's public /r/<token> page of a transcript, and the web-only call behind
 * it. The token is a signed results link (facade/signing.ts, kind "results", 7 days like the
 * download links) naming an account transcript or a free job; whoever holds it may read that
 * transcript: its text and timed lines, TXT/SRT/VTT links and, while the service still holds the
 * recording, a link to it for the page's player.
 */
import { Type } from "@sinclair/typebox";
import type { ResultsSource } from "../../daemon/studio/results.js";
import { formatDuration } from "../_format.js";
import { ApiError } from "../errors.js";
import { defineOperation, type Operation } from "../registry.js";
import { DOWNLOAD_TTL_SECONDS, type LinkClaims } from "../signing.js";
import { contentTypeFor, downloadLink, linkBase, sanitiseFileName, type LinkServices } from "../uploads.js";

/** The site's results page of a transcript: `<site>/r/<token>`, valid 7 days. */
export function resultsLink(
  services: LinkServices,
  o: { source: ResultsSource; id: string; origin?: string },
): { url: string; expires_at: string } {
  const { token, expiresAt } = services.signer.sign({ k: "results", key: `${o.source}:${o.id}` }, DOWNLOAD_TTL_SECONDS);
  return { url: `${linkBase(services.config, o.origin)}/r/${token}`, expires_at: expiresAt };
}

/** The claims of a results token; a changed or foreign token is 404 invalid_link, an old one 410 link_expired. */
function readToken(services: LinkServices, token: string): { source: ResultsSource; id: string; exp: number } {
  let claims: LinkClaims;
  try {
    claims = services.signer.verify(token, "results");
  } catch (err) {
    // Expiry is judged after the signature, so the claims of an expired token are clipd's own.
    if (err instanceof ApiError && err.status === 410) {
      const exp = Number(JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString("utf8")).exp);
      throw new ApiError(
        410,
        "link_expired",
        `this results link expired at ${new Date(exp * 1000).toISOString()}; read ` +
          `the transcript again (the API or the site) for a new link`,
        { field: "token" },
      );
    }
    throw new ApiError(
      404,
      "invalid_link",
      "this results link is not valid: it was changed, cut short or not made by this clipd",
      { field: "token" },
    );
  }
  const m = /^(account|free):([0-9a-f-]{36})$/.exec(claims.key);
  if (!m) throw new ApiError(404, "invalid_link", "this results link does not name a transcript", { field: "token" });
  return { source: m[1] as ResultsSource, id: m[2]!, exp: claims.exp };
}

const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: "null" }] });
const RESULTS_SCHEMA = {
  type: "object",
  required: [
    "kind",
    "id",
    "status",
    "text",
    "language",
    "duration_seconds",
    "segments",
    "downloads",
    "media",
    "expires_at",
  ],
  properties: {
    kind: { enum: ["account", "free"] },
    id: { type: "string" },
    name: { type: ["string", "null"] },
    status: { enum: ["queued", "running", "completed", "failed"] },
    text: { type: ["string", "null"] },
    language: { type: ["string", "null"] },
    duration: { type: ["string", "null"] },
    duration_seconds: { type: ["number", "null"] },
    word_count: { type: ["integer", "null"] },
    segments: nullable({
      type: "object",
      description: "The timed lines: {segments: [{start, end, text}], total, limit, truncated}",
    }),
    downloads: nullable({
      type: "object",
      properties: { txt: { type: "string" }, srt: { type: "string" }, vtt: { type: "string" } },
    }),
    media: nullable({
      type: "object",
      properties: { url: { type: "string" }, type: { type: "string" }, expires_at: { type: "string" } },
    }),
    error: { type: "object" },
    expires_at: { type: "string", description: "When this results link stops working" },
  },
};

const getResults = defineOperation({
  id: "getResults",
  method: "GET",
  path: "/api/v1/results/{token}",
  surfaces: ["web"],
  tags: ["web"],
  scope: null,
  auth: "public",
  rateLimited: true,
  params: { token: Type.String({ minLength: 1, maxLength: 4096 }) },
  summary:
    "A transcript behind a signed results link: text, timed lines, TXT/SRT/VTT " +
    "links and a link to the recording while it is kept",
  responses: {
    200: { description: "The transcript (text and links once completed)", schema: RESULTS_SCHEMA },
    404: { description: "invalid_link: the token was changed or not made here; not_found: the transcript is gone" },
    410: { description: "link_expired: the link is older than 7 days; expired: a free transcript past its retention" },
  },
  async handler(ctx) {
    const s = ctx.services;
    const { source, id, exp } = readToken(s, ctx.params.token);
    const r = await s.studio.results(source, id);
    if (r.status === "expired")
      throw new ApiError(
        410,
        "expired",
        "this free transcript has been deleted, as free transcripts are after their retention days",
        { field: "token" },
      );
    const origin = ctx.caller.linkOrigin;
    const base = sanitiseFileName(`${r.name ?? "transcript"}.txt`).replace(/\.txt$/, "");
    // Links last as long as the results link itself, never longer.
    const ttlSeconds = Math.max(60, exp - Math.floor(Date.now() / 1000));
    const link = (key: string, ext: string) => downloadLink(s, { key, name: `${base}.${ext}`, origin, ttlSeconds }).url;
    const audio =
      r.audio &&
      downloadLink(s, { key: r.audio.key, name: r.audio.name, type: contentTypeFor(r.audio.name), origin, ttlSeconds });
    return {
      kind: source,
      id,
      name: r.name,
      status: r.status,
      text: r.text,
      language: r.language,
      duration: formatDuration(r.duration_seconds),
      duration_seconds: r.duration_seconds,
      word_count: r.word_count,
      segments: r.lines,
      downloads: r.files
        ? { txt: link(r.files.txt, "txt"), srt: link(r.files.srt, "srt"), vtt: link(r.files.vtt, "vtt") }
        : null,
      media: audio ? { url: audio.url, type: contentTypeFor(r.audio!.name), expires_at: audio.expires_at } : null,
      ...(r.error ? { error: r.error } : {}),
      expires_at: new Date(exp * 1000).toISOString(),
    };
  },
});

export const WEB_RESULTS_OPERATIONS: Operation[] = [getResults];
