/**
 * The clip editor's web-only calls (issue 31; docs/website.md, "The clip editor"): the clip as its
 * timeline draws it, the ASS a render would burn for an unsaved look and words (the live preview
 * draws it in the browser with libass compiled to WebAssembly), and the caption fonts that preview
 * loads. Nothing here changes a clip: saving is PATCH /clips/{id}/captions with its editor fields.
 * The work is daemon/studio/editor.ts's.
 */
import { readFile } from "node:fs/promises";
import { Type } from "@sinclair/typebox";
import { ApiError } from "../errors.js";
import { defineOperation, uuidParam, type Operation } from "../registry.js";
import { downloadLink } from "../uploads.js";
import { CAPTION_EDIT_BODY } from "./clip-edits.js";
import { sessionOf } from "./web-account.js";

const web = { surfaces: ["web" as const], tags: ["web"], scope: null, auth: "session" as const };
const editFields = CAPTION_EDIT_BODY.properties;

const editor = defineOperation({
  id: "getClipEditor",
  method: "GET",
  path: "/api/v1/clips/{id}/editor",
  ...web,
  params: { id: uuidParam },
  summary: "The clip as the editor's timeline draws it: pieces, words with their caption, sentences, scenes, look",
  responses: {
    200: { description: "The clip's editor view (docs/website.md)" },
    404: { description: "No such clip on this account" },
    409: { description: "not_ready: the episode is not transcribed yet" },
  },
  async handler(ctx) {
    return ctx.services.studio.editor(sessionOf(ctx).accountId, ctx.params.id);
  },
});

const preview = defineOperation({
  id: "previewClipCaptions",
  method: "POST",
  path: "/api/v1/clips/{id}/captions/preview",
  ...web,
  params: { id: uuidParam },
  bodyRequired: false,
  summary:
    "The ASS subtitles a render would burn for this look, words and pieces (none saved), made as " +
    "caption-burn makes them, with the frame size and the fonts to draw them with",
  body: Type.Object(
    { cues: editFields.cues, pieces: editFields.pieces, look: editFields.look },
    { additionalProperties: false },
  ),
  responses: {
    200: {
      description:
        "{ass, width, height, duration, timeline, look, fonts: [{family, url}], frame}: frame is what the " +
        "render adds (brand logo, intro and outro cards, an audio clip's still)",
    },
    400: { description: "invalid_request naming the field (look.style, look.brand_kit, pieces)" },
    404: { description: "No such clip on this account" },
    409: { description: "not_ready: the episode is not transcribed yet" },
  },
  async handler(ctx) {
    const p = await ctx.services.studio.editorPreview(sessionOf(ctx).accountId, ctx.params.id, ctx.body);
    const fonts = p.fonts.map((f) => ({
      family: f.family,
      url: f.key
        ? downloadLink(ctx.services, { key: f.key, name: f.name ?? "font.ttf", origin: ctx.caller.linkOrigin }).url
        : `/web/api/v1/caption-fonts/${encodeURIComponent(f.file!)}`,
    }));
    const link = (key: string) => {
      const name = key.split("/").at(-1) ?? "image";
      const ext = /\.(png|jpe?g|webp)$/i.exec(name)?.[1]?.toLowerCase().replace("jpg", "jpeg") ?? "png";
      return downloadLink(ctx.services, { key, name, type: `image/${ext}`, origin: ctx.caller.linkOrigin }).url;
    };
    const { logo, audio, ...frame } = p.frame;
    return {
      ...p,
      fonts,
      // The logo and the cover art as links the browser can draw (they are the account's own files).
      frame: {
        ...frame,
        ...(logo ? { logo: { ...logo, url: link(logo.key), key: undefined } } : {}),
        ...(audio
          ? { audio: { ...audio, cover_url: audio.cover_key ? link(audio.cover_key) : null, cover_key: undefined } }
          : {}),
      },
    };
  },
});

const font = defineOperation({
  id: "getCaptionFont",
  method: "GET",
  path: "/api/v1/caption-fonts/{name}",
  ...web,
  params: { name: Type.String({ pattern: "^[A-Za-z0-9._-]{1,100}$" }) },
  summary: "A font file the caption styles use (the one fontconfig hands libass), for the editor's preview",
  responses: {
    200: { description: "font/ttf or font/otf" },
    404: { description: "Not a font of the caption styles (field name)" },
  },
  async handler(ctx) {
    const file = await ctx.services.studio.captionFont(ctx.params.name);
    if (!file) throw new ApiError(404, "not_found", `no caption font "${ctx.params.name}"`, { field: "name" });
    return new Response(new Uint8Array(await readFile(file)), {
      status: 200,
      headers: {
        "content-type": /\.otf$/i.test(file) ? "font/otf" : "font/ttf",
        "cache-control": "private, max-age=86400",
        "x-content-type-options": "nosniff",
      },
    });
  },
});

export const WEB_CLIP_EDITOR_OPERATIONS: Operation[] = [editor, preview, font];
