/**
 * The caption style catalogue (config/styles.yaml). Found by walking up from this module, so it
 * works from the sources and from a compiled dist/ tree; `render.styles_file` in config overrides.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { SIZES, type CaptionStyle } from "./ass.js";

export interface StyleCatalogue {
  default: string;
  styles: CaptionStyle[];
}

function _findFile(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, "config", "styles.yaml");
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error("config/styles.yaml was not found above daemon/kit");
}

const cache = new Map<string, StyleCatalogue>();

export function loadStyles(file?: string): StyleCatalogue {
  const where = file || _findFile();
  const hit = cache.get(where);
  if (hit) return hit;
  const doc = parse(readFileSync(where, "utf8")) as StyleCatalogue;
  if (!doc || !Array.isArray(doc.styles) || !doc.styles.length) {
    throw new Error(`${where}: expected a "styles:" list`);
  }
  for (const s of doc.styles) {
    const missing = ["id", "name", "description", "font", "colour", "outline_colour", "highlight", "animation"].filter(
      (k) => (s as any)[k] === undefined,
    );
    const sizes = SIZES.filter((k) => typeof s.sizes?.[k] !== "number");
    if (missing.length || sizes.length) {
      throw new Error(`${where}: style "${s.id ?? "?"}" lacks ${[...missing, ...sizes.map((k) => `sizes.${k}`)].join(", ")}`);
    }
  }
  if (!doc.styles.some((s) => s.id === doc.default)) doc.default = doc.styles[0]!.id; // non-empty, checked above
  cache.set(where, doc);
  return doc;
}
