// JSON Schemas of the brand kit and episode cover operations (brand-kits.ts): request validation,
// the OpenAPI document, the MCP tools' arguments and the answer checks in the API tests. Every
// field here is an extension of the published API description ("x-extension").
import type { JsonSchema } from "../../daemon/engine/stage.js";
import { LOGO_CORNERS } from "../../daemon/render/brand.js";
import { BUNDLED_FONTS } from "../../daemon/brand/bundled-fonts.js";
import { CARD_SECONDS, CARD_TEXT_MAX, LOGO_SIZE } from "../../daemon/brand/kit-rows.js";

const str = (extra: Record<string, unknown> = {}): JsonSchema => ({ type: "string", ...extra });
const nullable = (s: JsonSchema): JsonSchema => ({ anyOf: [s, { type: "null" }] });
const livemode: JsonSchema = {
  type: "boolean",
  description: "false for test keys (kits belong to the account in both modes)",
};
const colour = (what: string) => str({ pattern: "^#[0-9A-Fa-f]{6}$", description: `${what}, "#RRGGBB"` });
const colours: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    primary: colour("Caption text"),
    accent: colour("The active word and emphasis"),
    background: colour("Caption boxes, the intro/outro cards and pads"),
  },
};
const card = (which: string): JsonSchema =>
  nullable({
    type: "object",
    additionalProperties: false,
    required: ["text"],
    description: `The ${which} card: the text on the kit's background colour; null: none`,
    properties: {
      text: str({ minLength: 1, maxLength: CARD_TEXT_MAX }),
      seconds: {
        type: "number",
        minimum: CARD_SECONDS.min,
        maximum: CARD_SECONDS.max,
        description: `How long it shows, ${CARD_SECONDS.min}–${CARD_SECONDS.max} s (default 1.5)`,
      },
    },
  });
const logoPlacement: JsonSchema = {
  type: "object",
  additionalProperties: false,
  description: "Where the logo goes (upload it with PUT /api/v1/brand-kits/{id}/logo)",
  properties: {
    corner: str({ enum: [...LOGO_CORNERS], description: "Default top-right" }),
    size: {
      type: "number",
      minimum: LOGO_SIZE.min,
      maximum: LOGO_SIZE.max,
      description: `Width as a fraction of the frame's width (default ${LOGO_SIZE.default})`,
    },
    opacity: { type: "number", minimum: 0, maximum: 1, description: "Default 0.9" },
  },
};
const common: Record<string, JsonSchema> = {
  name: str({ minLength: 1, maxLength: 80 }),
  colours,
  bundled_font: str({
    enum: BUNDLED_FONTS.map((f) => f.family),
    description: "A free font the server has, instead of uploading one",
  }),
  intro: card("intro"),
  outro: card("outro"),
  show_name: nullable(
    str({ minLength: 1, maxLength: 80, description: "The show's name, drawn on audio clips' template" }),
  ),
};

const kit: JsonSchema = {
  type: "object",
  required: [
    "brand_kit_id",
    "name",
    "colours",
    "font",
    "logo",
    "intro",
    "outro",
    "cover",
    "show_name",
    "created_at",
    "updated_at",
  ],
  "x-extension": true,
  properties: {
    brand_kit_id: str({
      format: "uuid",
      description: "Name it as brand_kit on POST /episodes/{id}/clips or PATCH /clips/{id}",
    }),
    name: str(),
    colours: { type: "object", required: ["primary", "accent", "background"], properties: colours.properties },
    font: nullable({
      type: "object",
      required: ["family", "file_name", "bundled"],
      properties: {
        family: str({ description: "The family name read from the font file" }),
        file_name: str(),
        bundled: { type: "boolean" },
      },
    }),
    logo: {
      type: "object",
      required: ["uploaded", "corner", "size", "opacity"],
      properties: {
        uploaded: { type: "boolean" },
        corner: str({ enum: [...LOGO_CORNERS] }),
        size: { type: "number" },
        opacity: { type: "number" },
      },
    },
    intro: nullable({
      type: "object",
      required: ["text", "seconds"],
      properties: { text: str(), seconds: { type: "number" } },
    }),
    outro: nullable({
      type: "object",
      required: ["text", "seconds"],
      properties: { text: str(), seconds: { type: "number" } },
    }),
    cover: { type: "object", required: ["uploaded"], properties: { uploaded: { type: "boolean" } } },
    show_name: nullable(str()),
    created_at: str({ format: "date-time" }),
    updated_at: str({ format: "date-time" }),
    livemode,
  },
};

const linkQuery = str({
  format: "uri",
  pattern: "^https://",
  maxLength: 2000,
  description: "An https link to the file, fetched instead of a request body (how an MCP tool sets one)",
});

export const K = {
  kit,
  list: {
    type: "object",
    required: ["brand_kits", "limit"],
    properties: {
      brand_kits: { type: "array", items: kit },
      limit: { type: "integer", description: "Most kits the account may keep" },
      livemode,
    },
  } as JsonSchema,
  create: {
    type: "object",
    additionalProperties: false,
    required: ["name"],
    "x-extension": true,
    properties: { ...common, logo: logoPlacement },
  } as JsonSchema,
  update: {
    type: "object",
    additionalProperties: false,
    minProperties: 1,
    "x-extension": true,
    properties: {
      ...common,
      logo: nullable({ ...logoPlacement, description: "New placement; null removes the uploaded logo" }),
      font: { type: "null", description: "null removes the font (captions use their style's own)" },
      cover: { type: "null", description: "null removes the kit's cover art" },
    },
  } as JsonSchema,
  deleted: {
    type: "object",
    required: ["brand_kit_id", "deleted"],
    properties: { brand_kit_id: str({ format: "uuid" }), deleted: { const: true }, livemode },
  } as JsonSchema,
  fileQuery: { type: "object", properties: { url: linkQuery } } as JsonSchema,
  fontQuery: {
    type: "object",
    properties: {
      url: linkQuery,
      file_name: str({
        minLength: 1,
        maxLength: 120,
        description: "The font's file name, shown back (default: the family name)",
      }),
    },
  } as JsonSchema,
  cover: {
    type: "object",
    required: ["episode_id", "cover"],
    "x-extension": true,
    properties: {
      episode_id: str({ format: "uuid" }),
      cover: {
        type: "object",
        required: ["set"],
        properties: {
          set: { type: "boolean" },
          width: { type: "integer" },
          height: { type: "integer" },
          source: str({ enum: ["upload", "url"] }),
        },
      },
      livemode,
    },
  } as JsonSchema,
};
