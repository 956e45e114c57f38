/**
 * Brand kits (/api/v1/brand-kits) and an episode's cover art (/api/v1/episodes/{id}/cover): the
 * registry's operations, so the API, OpenAPI, the MCP tools and the website get them together.
 * Kits belong to the account, whichever key mode manages them (as webhooks do). Files go up as
 * the raw request body (any Content-Type: the bytes are sniffed), or by an https link in the `url`
 * query field, which is also how an MCP tool, which cannot stream bytes, sets one. The kit
 * operations are here, with the list of them all; the file uploads and the episode cover are in
 * brand-uploads.ts, and this module re-exports them.
 */
import { kitView, type KitRow } from "../../daemon/brand/kit-rows.js";
import { defineOperation, settleAnswer, uuidParam, type Operation } from "../registry.js";
import { _authOf } from "./_account-testmode.js";
import { answer, brand } from "./_brand-services.js";
import { K } from "./_brand-schemas.js";
import {
  deleteEpisodeCover,
  setEpisodeCover,
  uploadBrandKitCover,
  uploadBrandKitFont,
  uploadBrandKitLogo,
} from "./brand-uploads.js";

export { deleteEpisodeCover, setEpisodeCover, uploadBrandKitCover, uploadBrandKitFont, uploadBrandKitLogo };

const id = { id: uuidParam };
const tags = ["brand-kits"];

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
  // An Idempotency-Key replays the first answer: a retried create makes no second kit.
  idempotent: true,
  body: K.create,
  responses: {
    201: { description: "The kit", schema: K.kit },
    400: { description: "Invalid request, naming the field" },
    409: { description: "limit_reached: the account keeps brand.kits_per_account kits at most" },
  },
  async handler(ctx) {
    // The answer is settled in the kit's own transaction: the kit and its replay commit together.
    const hook = settleAnswer(ctx, 201, (kit: KitRow) => answer(ctx, kit));
    await brand(ctx.services).kits.create(_authOf(ctx).account.id, ctx.body, hook.within);
    return hook.answer;
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
  idempotent: true,
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
