/**
 * The caption style catalogue (config/styles.yaml). Found by walking up from this module, so it
 * works from the sources and from a compiled dist/ tree; `render.styles_file` in config overrides.
 * A brand kit recolours a style and may change its font (brandStyle), never its shape.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { SIZES, type CaptionStyle } from "./ass.js";
import type { BrandSnapshot } from "./brand.js";

export interface StyleCatalogue {
  default: string;
  styles: CaptionStyle[];
}

/** A file under config/ (e.g. "styles.yaml", "words/profanity.txt"), found above this module. */
export function findConfigFile(rel: string): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, "config", rel);
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error(`config/${rel} was not found above daemon/render`);
}

const cache = new Map<string, StyleCatalogue>();

export function loadStyles(file?: string): StyleCatalogue {
  const where = file || findConfigFile("styles.yaml");
  const hit = cache.get(where);
  if (hit) return hit;
  const doc = parse(readFileSync(where, "utf8")) as StyleCatalogue;
  if (!doc || !Array.isArray(doc.styles) || !doc.styles.length) {
    throw new Error(`${where}: expected a "styles:" list`);
  }
  for (const s of doc.styles) {
    const missing = ["id", "name", "description", "font", "colour", "outline_colour", "highlight", "animation"].filter(
      (k) => (s as unknown as Record<string, unknown>)[k] === undefined,
    );
    const sizes = SIZES.filter((k) => typeof s.sizes?.[k] !== "number");
    if (missing.length || sizes.length) {
      throw new Error(
        `${where}: style "${s.id ?? "?"}" lacks ${[...missing, ...sizes.map((k) => `sizes.${k}`)].join(", ")}`,
      );
    }
  }
  if (!doc.styles.some((s) => s.id === doc.default)) doc.default = doc.styles[0]!.id; // non-empty, checked above
  cache.set(where, doc);
  return doc;
}

/**
 * A style in a brand's colours and font: primary is the text, accent the spoken word and emphasis,
 * background the box behind boxed text and the hook title's box. Sizes, outline, box, shadow and
 * animation stay the style's, so "boxed" stays a box and "karaoke" still sweeps. A boxed style's
 * box is the brand background; an outlined one keeps its outline colour (it is the text's edge).
 */
export function brandStyle(style: CaptionStyle, brand?: Pick<BrandSnapshot, "colours" | "font"> | null): CaptionStyle {
  if (!brand) return style;
  const { primary, accent, background } = brand.colours;
  return {
    ...style,
    colour: primary,
    highlight: accent,
    ...(style.box ? { outline_colour: background } : {}),
    hook_background: background,
    hook_colour: primary,
    ...(brand.font?.family ? { font: assFontName(brand.font.family) } : {}),
  };
}

/**
 * A family name as an ASS Style field can hold it: commas separate the fields and a leading "@"
 * asks for vertical text, so both go (libass then falls back to another font for such a name).
 */
export const assFontName = (family: string) =>
  family
    .replace(/[,\r\n]/g, " ")
    .replace(/^@+/, "")
    .trim() || "DejaVu Sans";
