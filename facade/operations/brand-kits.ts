/**
 * Brand kits (/api/v1/brand-kits) and an episode's cover art (/api/v1/episodes/{id}/cover): the
 * registry's operations, so the API, OpenAPI, the MCP tools and the website get them together.
 * Kits belong to the account, whichever key mode manages them (as webhooks do). Files go up as
 * the raw request body (any Content-Type: the bytes are sniffed), or by an https link in the `url`
 * query field, which is also how an MCP tool, which cannot stream bytes, sets one.
 */
import { BrandKits } from "../../daemon/brand/kits.js";
import { EpisodeCovers } from "../../daemon/brand/episode-cover.js";
import { maxBytesOf, tooBig, type BrandFileKind } from "../../daemon/brand/files.js";
import { kitView } from "../../daemon/brand/kit-rows.js";
import { lingerOver, nextChunk, requestHasBody } from "../_body.js";
import { ApiError } from "../errors.js";
import { defineOperation, uuidParam, type Operation, type OperationContext } from "../registry.js";
import type { FacadeServices } from "../services.js";
import { _authOf } from "./_account-testmode.js";
import { errorResponse } from "./_upload-body.js";
import { K } from "./_brand-schemas.js";

const id = { id: uuidParam };
const tags = ["brand-kits"];

// One service per facade: they hold nothing but what FacadeServices already has.
const made = new WeakMap<FacadeServices, { kits: BrandKits; covers: EpisodeCovers }>();
function brand(s: FacadeServices) {
  let b = made.get(s);
  if (!b) {
    const deps = { db: s.db, storage: s.storage, config: s.config };
    b = { kits: new BrandKits(deps), covers: new EpisodeCovers(deps) };
    made.set(s, b);
  }
  return b;
}

/**
 * The file of an upload call: fetched from `?url=`, else the request's raw body read under the
 * kind's cap (a declared Content-Length over it is refused before a byte is read).
 */
type From = { bytes?: Buffer; url?: string };
/** An upload call's context: its query may name the file's `url` (K.fileQuery, K.fontQuery). */
type UploadContext = OperationContext<unknown, { url?: string }>;

/**
 * Runs an upload: `before` (the kit or episode must be the caller's: a 404 comes before a byte is
 * read), the file, then `save`. Refused before the body was read whole, the answer closes the
 * connection (after a short linger, so the client reads the refusal first) rather than leave
 * unread bytes on a kept-alive socket.
 */
async function upload(
  ctx: UploadContext,
  kind: BrandFileKind,
  before: () => Promise<unknown>,
  save: (from: From) => Promise<unknown>,
): Promise<unknown> {
  let from: From;
  try {
    await before();
    from = await readFile(ctx, kind);
  } catch (err) {
    const req = ctx.caller.request;
    if (!req || !requestHasBody(req)) throw err;
    lingerOver(req);
    return errorResponse(err, { connection: "close" });
  }
  return save(from);
}

async function readFile(ctx: UploadContext, kind: BrandFileKind): Promise<From> {
  const url = ctx.query.url;
  if (url !== undefined) return { url };
  const req = ctx.caller.request;
  const noBody = () =>
    new ApiError(
      400,
      "invalid_request",
      `send the ${kind} file as the request body, or give its https link in the query field "url"`,
      { field: "body" },
    );
  if (!req?.body) throw noBody();
  const max = maxBytesOf(kind, ctx.services.config.brand);
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > max) throw tooBig(kind, max, declared);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (
      let next = await nextChunk(reader, 0, "upload_interrupted", `the ${kind} file`);
      !next.done;
      next = await nextChunk(reader, bytes, "upload_interrupted", `the ${kind} file`)
    ) {
      bytes += next.value.byteLength;
      if (bytes > max) throw tooBig(kind, max, bytes);
      chunks.push(next.value);
    }
  } finally {
    reader.releaseLock();
  }
  if (!bytes) throw noBody();
  return { bytes: Buffer.concat(chunks, bytes) };
}

const answer = (ctx: OperationContext, kit: Parameters<typeof kitView>[0]) => ({
  ...kitView(kit),
  livemode: _authOf(ctx).livemode,
});

export const listBrandKits = defineOperation({
  id: "listBrandKits",
  method: "GET",
  path: "/api/v1/brand-kits",
  summary: "The account's brand kits",
  scope: "clips.read",
  tags,
  responses: { 200: { description: "Brand kits, oldest first", schema: K.list } },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const kits = await brand(ctx.services).kits.list(auth.account.id);
    return {
      brand_kits: kits.map(kitView),
      limit: ctx.services.config.brand.kits_per_account,
      livemode: auth.livemode,
    };
  },
});

export const createBrandKit = defineOperation({
  id: "createBrandKit",
  method: "POST",
  path: "/api/v1/brand-kits",
  scope: "clips.write",
  tags,
  summary:
    "Make a brand kit: a name, colours, a bundled font, logo placement, intro/outro " +
    "cards; upload its font, logo and cover next",
  body: K.create,
  responses: {
    201: { description: "The kit", schema: K.kit },
    400: { description: "Invalid request, naming the field" },
    409: { description: "limit_reached: the account keeps brand.kits_per_account kits at most" },
  },
  async handler(ctx) {
    const kit = await brand(ctx.services).kits.create(_authOf(ctx).account.id, ctx.body);
    ctx.status = 201;
    return answer(ctx, kit);
  },
});

export const getBrandKit = defineOperation({
  id: "getBrandKit",
  method: "GET",
  path: "/api/v1/brand-kits/{id}",
  summary: "A brand kit",
  scope: "clips.read",
  tags,
  params: id,
  responses: { 200: { description: "The kit", schema: K.kit }, 404: { description: "Not on this account" } },
  async handler(ctx) {
    return answer(ctx, await brand(ctx.services).kits.get(_authOf(ctx).account.id, ctx.params.id));
  },
});

export const updateBrandKit = defineOperation({
  id: "updateBrandKit",
  method: "PATCH",
  path: "/api/v1/brand-kits/{id}",
  scope: "clips.write",
  tags,
  params: id,
  summary:
    "Change a brand kit: what the body names changes (null removes the font, " +
    "logo, cover or a card); clips already made keep the kit they were made with",
  body: K.update,
  responses: {
    200: { description: "The kit", schema: K.kit },
    400: { description: "Invalid request, naming the field" },
    404: { description: "Not on this account" },
  },
  async handler(ctx) {
    return answer(ctx, await brand(ctx.services).kits.update(_authOf(ctx).account.id, ctx.params.id, ctx.body));
  },
});

export const deleteBrandKit = defineOperation({
  id: "deleteBrandKit",
  method: "DELETE",
  path: "/api/v1/brand-kits/{id}",
  scope: "clips.write",
  tags,
  params: id,
  summary: "Delete a brand kit and its files; saved clip defaults naming it no longer name a kit",
  responses: { 200: { description: "Deleted", schema: K.deleted }, 404: { description: "Not on this account" } },
  async handler(ctx) {
    const auth = _authOf(ctx);
    await brand(ctx.services).kits.remove(auth.account.id, ctx.params.id);
    return { brand_kit_id: ctx.params.id, deleted: true, livemode: auth.livemode };
  },
});

const uploadResponses = (what: string) => ({
  200: { description: `The kit with its new ${what}`, schema: K.kit },
  400: {
    description:
      `unsupported_type: the bytes are not a ${what} clipd takes (the message ` +
      `says what they are); fetch_failed or invalid_url: the link; naming the field`,
  },
  404: { description: "Not on this account" },
  413: { description: `too_big: the ${what} is over its limit (max_bytes)` },
});

const rawBody = (what: string, mediaTypes: string[]) => ({
  description:
    `The ${what} file's bytes (any Content-Type: the bytes decide; leave the ` +
    `body empty when the query names a url)`,
  mediaTypes: [...mediaTypes, "application/octet-stream"],
});
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp"];
const RAW: Record<BrandFileKind, ReturnType<typeof rawBody>> = {
  font: rawBody("font (TTF or OTF)", ["font/ttf", "font/otf"]),
  logo: rawBody("logo (PNG or SVG)", ["image/png", "image/svg+xml"]),
  cover: rawBody("cover art (PNG, JPEG or WebP)", IMAGE_TYPES),
};

function uploadOp(kind: BrandFileKind, opId: string, summary: string, what: string) {
  return defineOperation({
    id: opId,
    method: "PUT",
    path: `/api/v1/brand-kits/{id}/${kind}`,
    scope: "clips.write",
    tags,
    params: id,
    summary,
    rawBody: RAW[kind],
    query: kind === "font" ? K.fontQuery : K.fileQuery,
    responses: uploadResponses(what),
    async handler(ctx) {
      const kits = brand(ctx.services).kits;
      const accountId = _authOf(ctx).account.id;
      // Only the font's query has file_name (K.fontQuery checked it); the union of the two is the file query's type.
      const q = ctx.query;
      const fileName = "file_name" in q && typeof q.file_name === "string" ? q.file_name : undefined;
      return upload(
        ctx,
        kind,
        () => kits.get(accountId, ctx.params.id),
        async (from) => answer(ctx, await kits.putFile(accountId, ctx.params.id, kind, { ...from, fileName })),
      );
    },
  });
}

export const uploadBrandKitFont = uploadOp(
  "font",
  "uploadBrandKitFont",
  "Upload the kit's font: a TTF or OTF file as the body (or ?url=); its family name is read from the file",
  "font",
);
export const uploadBrandKitLogo = uploadOp(
  "logo",
  "uploadBrandKitLogo",
  "Upload the kit's logo: a PNG or SVG file as the body (or ?url=); an SVG is drawn to PNG when saved",
  "logo",
);
export const uploadBrandKitCover = uploadOp(
  "cover",
  "uploadBrandKitCover",
  "Upload the kit's cover art for audio clips: a PNG, JPEG or WebP image as the body (or ?url=)",
  "cover art",
);

export const setEpisodeCover = defineOperation({
  id: "setEpisodeCover",
  method: "PUT",
  path: "/api/v1/episodes/{id}/cover",
  scope: "clips.write",
  tags: ["episodes"],
  params: id,
  summary:
    "Set an episode's cover art (behind its audio clips, over a brand kit's): " +
    "a PNG, JPEG or WebP image as the body, or its https link in ?url=",
  query: K.fileQuery,
  rawBody: RAW.cover,
  responses: {
    ...uploadResponses("cover art"),
    200: { description: "The cover is set; clips made from now on use it", schema: K.cover },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const covers = brand(ctx.services).covers;
    return upload(
      ctx,
      "cover",
      () => covers.current(auth.account.id, ctx.params.id),
      async (from) => ({ ...(await covers.set(auth.account.id, ctx.params.id, from)), livemode: auth.livemode }),
    );
  },
});

export const deleteEpisodeCover = defineOperation({
  id: "deleteEpisodeCover",
  method: "DELETE",
  path: "/api/v1/episodes/{id}/cover",
  scope: "clips.write",
  tags: ["episodes"],
  params: id,
  summary: "Remove an episode's own cover art (its clips fall back to the brand kit's, the file's own, or a gradient)",
  responses: {
    200: { description: "No cover of its own", schema: K.cover },
    404: { description: "Not on this account" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    return { ...(await brand(ctx.services).covers.clear(auth.account.id, ctx.params.id)), livemode: auth.livemode };
  },
});

export const BRAND_OPERATIONS: Operation[] = [
  listBrandKits,
  createBrandKit,
  getBrandKit,
  updateBrandKit,
  deleteBrandKit,
  uploadBrandKitFont,
  uploadBrandKitLogo,
  uploadBrandKitCover,
  setEpisodeCover,
  deleteEpisodeCover,
];
