/**
 * The upload operations of brand kits (font, logo, cover art: PUT /api/v1/brand-kits/{id}/{kind}) and
 * an episode's cover art (/api/v1/episodes/{id}/cover). Files go up as the raw request body or by
 * an https link in `url` (see brand-kits.ts); reading them is in _brand-upload.ts.
 */
import type { BrandFileKind } from "../../daemon/brand/files.js";
import { defineOperation, uuidParam } from "../registry.js";
import { _authOf } from "./_account-testmode.js";
import { answer, brand } from "./_brand-services.js";
import { RAW, upload, uploadResponses } from "./_brand-upload.js";
import { K } from "./_brand-schemas.js";

const id = { id: uuidParam };
const tags = ["brand-kits"];

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
