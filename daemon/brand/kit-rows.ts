/**
 * A brand kit's row, what a caller may set on it, and the two shapes it leaves in: the view the
 * API answers, and the snapshot a clip run carries (daemon/render/brand.ts). The checks here are the
 * ones JSON Schema cannot say on its own (the operations' schemas say the rest), so the service
 * refuses the same things whichever surface calls it.
 */
import { INTRO_ORDERS, LOGO_CORNERS, type BrandCard, type BrandSnapshot, type LogoCorner } from "../render/brand.js";
import { Refused } from "../domain/errors.js";
import { jsonColumn } from "../store/_columns.js";

export const HEX_COLOUR = /^#[0-9A-Fa-f]{6}$/;
export const LOGO_SIZE = { min: 0.05, max: 0.4, default: 0.15 };
export const LOGO_OPACITY_DEFAULT = 0.9;
export const CARD_SECONDS = { min: 1, max: 2 };
export const CARD_TEXT_MAX = 80;
export const DEFAULT_COLOURS = { primary: "#FFFFFF", accent: "#FFD400", background: "#111111" };

export interface KitFont {
  key: string;
  family: string;
  file_name: string;
  bundled?: boolean;
}
export interface LogoPlacement {
  corner: LogoCorner;
  size: number;
  opacity: number;
}

export interface KitRow {
  id: string;
  account_id: string;
  name: string;
  colours: { primary: string; accent: string; background: string };
  font: KitFont | null;
  /** The placement always; `key` once a logo is uploaded. */
  logo: LogoPlacement & { key?: string };
  intro: BrandCard | null;
  outro: BrandCard | null;
  cover_key: string | null;
  show_name: string | null;
  created_at: string;
  updated_at: string;
}

/** A card as a request names it: the seconds may be left out (checkCard fills them in). */
export type CardInput = Pick<BrandCard, "text"> & Partial<Pick<BrandCard, "seconds" | "order">>;

/** What a create or update may name (all optional on update; `null` clears). */
export interface KitInput {
  name?: string;
  colours?: Partial<KitRow["colours"]>;
  bundled_font?: string;
  font?: null;
  logo?: Partial<LogoPlacement> | null;
  intro?: CardInput | null;
  outro?: CardInput | null;
  cover?: null;
  show_name?: string | null;
}

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));

// biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
export function toKitRow(r: Record<string, any>): KitRow {
  const logo = jsonColumn(r.logo) ?? {};
  return {
    id: r.id,
    account_id: r.account_id,
    name: r.name,
    colours: { primary: r.primary_colour, accent: r.accent_colour, background: r.background_colour },
    font: jsonColumn(r.font) ?? null,
    logo: {
      corner: logo.corner ?? "top-right",
      size: logo.size ?? LOGO_SIZE.default,
      opacity: logo.opacity ?? LOGO_OPACITY_DEFAULT,
      ...(logo.key ? { key: logo.key } : {}),
    },
    // Kits saved before the intro had an order play it after the hook, the default (issue 39).
    intro: r.intro ? { order: "hook_first", ...jsonColumn(r.intro) } : null,
    outro: jsonColumn(r.outro) ?? null,
    cover_key: r.cover_key ?? null,
    show_name: r.show_name ?? null,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

const bad = (field: string, message: string) =>
  new Refused("invalid_request", `body field "${field}" ${message}`, { context: { field } });

function checkCard(field: "intro" | "outro", card: CardInput | null | undefined): BrandCard | null | undefined {
  if (card === undefined || card === null) return card;
  const text = String(card.text ?? "").trim();
  if (!text) throw bad(`${field}.text`, "must not be empty");
  if ([...text].length > CARD_TEXT_MAX) throw bad(`${field}.text`, `must be at most ${CARD_TEXT_MAX} characters`);
  const seconds = card.seconds ?? CARD_SECONDS.min + 0.5;
  if (!(seconds >= CARD_SECONDS.min && seconds <= CARD_SECONDS.max))
    throw bad(`${field}.seconds`, `must be from ${CARD_SECONDS.min} to ${CARD_SECONDS.max}`);
  if (card.order === undefined) return { text, seconds, ...(field === "intro" ? { order: "hook_first" } : {}) };
  if (field !== "intro") throw bad("outro.order", "is for the intro card only (the outro always closes the clip)");
  if (!INTRO_ORDERS.includes(card.order)) throw bad("intro.order", `must be one of ${INTRO_ORDERS.join(", ")}`);
  return { text, seconds, order: card.order };
}

/** The row's fields after `input` (no files: those come from their own uploads). */
export function applyInput(
  base: Pick<KitRow, "name" | "colours" | "logo" | "intro" | "outro" | "show_name">,
  input: KitInput,
): typeof base {
  const out = structuredClone(base);
  if (input.name !== undefined) {
    const name = input.name.trim();
    if (!name) throw bad("name", "must not be empty");
    out.name = name;
  }
  for (const k of ["primary", "accent", "background"] as const) {
    const v = input.colours?.[k];
    if (v === undefined) continue;
    if (!HEX_COLOUR.test(v))
      throw bad(`colours.${k}`, `must be a colour written "#RRGGBB" (got "${String(v).slice(0, 20)}")`);
    out.colours[k] = v.toUpperCase();
  }
  if (input.logo) {
    const { corner, size, opacity } = input.logo;
    if (corner !== undefined && !LOGO_CORNERS.includes(corner))
      throw bad("logo.corner", `must be one of ${LOGO_CORNERS.join(", ")}`);
    if (size !== undefined && !(size >= LOGO_SIZE.min && size <= LOGO_SIZE.max))
      throw bad("logo.size", `must be from ${LOGO_SIZE.min} to ${LOGO_SIZE.max} (a fraction of the frame's width)`);
    if (opacity !== undefined && !(opacity >= 0 && opacity <= 1)) throw bad("logo.opacity", "must be from 0 to 1");
    out.logo = {
      ...out.logo,
      ...(corner !== undefined ? { corner } : {}),
      ...(size !== undefined ? { size } : {}),
      ...(opacity !== undefined ? { opacity } : {}),
    };
  }
  const intro = checkCard("intro", input.intro);
  if (intro !== undefined) out.intro = intro;
  const outro = checkCard("outro", input.outro);
  if (outro !== undefined) out.outro = outro;
  if (input.show_name !== undefined) out.show_name = input.show_name === null ? null : input.show_name.trim() || null;
  return out;
}

/** The kit as the API shows it: files by what they are, never by storage key. */
export function kitView(k: KitRow) {
  return {
    brand_kit_id: k.id,
    name: k.name,
    colours: k.colours,
    font: k.font ? { family: k.font.family, file_name: k.font.file_name, bundled: !!k.font.bundled } : null,
    logo: { uploaded: !!k.logo.key, corner: k.logo.corner, size: k.logo.size, opacity: k.logo.opacity },
    intro: k.intro,
    outro: k.outro,
    cover: { uploaded: !!k.cover_key },
    show_name: k.show_name,
    created_at: k.created_at,
    updated_at: k.updated_at,
  };
}
export type KitView = ReturnType<typeof kitView>;

/** What a clip run carries: only what is set, so a stage tests for presence. */
export function toSnapshot(k: KitRow): BrandSnapshot {
  return {
    id: k.id,
    name: k.name,
    colours: { ...k.colours },
    ...(k.font ? { font: { key: k.font.key, family: k.font.family, file_name: k.font.file_name } } : {}),
    ...(k.logo.key
      ? { logo: { key: k.logo.key, corner: k.logo.corner, size: k.logo.size, opacity: k.logo.opacity } }
      : {}),
    ...(k.intro ? { intro: { ...k.intro } } : {}),
    ...(k.outro ? { outro: { ...k.outro } } : {}),
    ...(k.cover_key ? { cover_key: k.cover_key } : {}),
    ...(k.show_name ? { show_name: k.show_name } : {}),
  };
}
