// JSON Schemas of the brand kit and episode cover operations (brand-kits.ts): request validation,
// the OpenAPI document, the MCP tools' arguments and the answer checks in the API tests. Every
// field here is an extension of the published API description (each object's description says
// "Extension:"; a strict validator refuses an "x-extension" keyword in a schema). The request
// schemas are TypeBox, so the handlers' body and query types come from them (facade/registry.ts).
import { Type } from "@sinclair/typebox";
import { StringEnum, type JsonSchema } from "../../daemon/engine/stage.js";
import { INTRO_ORDERS, LOGO_CORNERS } from "../../daemon/render/brand.js";
import { BUNDLED_FONTS } from "../../daemon/brand/bundled-fonts.js";
import { CARD_SECONDS, CARD_TEXT_MAX, LOGO_SIZE } from "../../daemon/brand/kit-rows.js";

const str = (extra: Record<string, unknown> = {}): JsonSchema => ({ type: "string", ...extra });
const nullable = (s: JsonSchema): JsonSchema => ({ anyOf: [s, { type: "null" }] });
const Opt = Type.Optional;
const livemode: JsonSchema = {
  type: "boolean",
  description: "false for test keys (kits belong to the account in both modes)",
};
const colour = (what: string) => Opt(Type.String({ pattern: "^#[0-9A-Fa-f]{6}$", description: `${what}, "#RRGGBB"` }));
const colours = Type.Object(
  {
    primary: colour("Caption text"),
    accent: colour("The active word and emphasis"),
    background: colour("Caption boxes, the intro/outro cards and pads"),
  },
  { additionalProperties: false },
);
const introOrder = StringEnum(INTRO_ORDERS, {
  description:
    "hook_first (the default): the clip opens on its picture with the hook, and the intro card plays " +
    "after the clip; card_first: the card plays before the clip",
});
const card = (which: "intro" | "outro") =>
  Type.Union([
    Type.Object(
      {
        text: Type.String({ minLength: 1, maxLength: CARD_TEXT_MAX }),
        seconds: Opt(
          Type.Number({
            minimum: CARD_SECONDS.min,
            maximum: CARD_SECONDS.max,
            description: `How long it shows, ${CARD_SECONDS.min}–${CARD_SECONDS.max} s (default 1.5)`,
          }),
        ),
        ...(which === "intro" ? { order: Opt(introOrder) } : {}),
      },
      {
        additionalProperties: false,
        description: `The ${which} card: the text on the kit's background colour; null: none`,
      },
    ),
    Type.Null(),
  ]);
const logoPlacement = (description: string) =>
  Type.Object(
    {
      corner: Opt(StringEnum(LOGO_CORNERS, { description: "Default top-right" })),
      size: Opt(
        Type.Number({
          minimum: LOGO_SIZE.min,
          maximum: LOGO_SIZE.max,
          description: `Width as a fraction of the frame's width (default ${LOGO_SIZE.default})`,
        }),
      ),
      opacity: Opt(Type.Number({ minimum: 0, maximum: 1, description: "Default 0.9" })),
    },
    { additionalProperties: false, description },
  );
const common = {
  name: Type.String({ minLength: 1, maxLength: 80 }),
  colours: Opt(colours),
  bundled_font: Opt(
    StringEnum(
      BUNDLED_FONTS.map((f) => f.family),
      { description: "A free font the server has, instead of uploading one" },
    ),
  ),
  intro: Opt(card("intro")),
  outro: Opt(card("outro")),
  show_name: Opt(
    Type.Union([
      Type.String({ minLength: 1, maxLength: 80, description: "The show's name, drawn on audio clips' template" }),
      Type.Null(),
    ]),
  ),
};

const PLACEMENT = "Where the logo goes (upload it with PUT /api/v1/brand-kits/{id}/logo)";
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
  description: "Extension: a brand kit",
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
      required: ["text", "seconds", "order"],
      properties: { text: str(), seconds: { type: "number" }, order: str({ enum: [...INTRO_ORDERS] }) },
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

const linkQuery = Type.String({
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
  create: Type.Object(
    { ...common, logo: Opt(logoPlacement(PLACEMENT)) },
    { additionalProperties: false, description: "Extension: a new brand kit" },
  ),
  update: Type.Object(
    {
      ...common,
      name: Opt(common.name),
      logo: Opt(Type.Union([logoPlacement("New placement; null removes the uploaded logo"), Type.Null()])),
      font: Opt(Type.Null({ description: "null removes the font (captions use their style's own)" })),
      cover: Opt(Type.Null({ description: "null removes the kit's cover art" })),
    },
    { additionalProperties: false, minProperties: 1, description: "Extension: what changes in a brand kit" },
  ),
  deleted: {
    type: "object",
    required: ["brand_kit_id", "deleted"],
    properties: { brand_kit_id: str({ format: "uuid" }), deleted: { const: true }, livemode },
  } as JsonSchema,
  fileQuery: Type.Object({ url: Opt(linkQuery) }),
  fontQuery: Type.Object({
    url: Opt(linkQuery),
    file_name: Opt(
      Type.String({
        minLength: 1,
        maxLength: 120,
        description: "The font's file name, shown back (default: the family name)",
      }),
    ),
  }),
  cover: {
    type: "object",
    required: ["episode_id", "cover"],
    description: "Extension: an episode's own cover art",
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
