/**
 * Free fonts a kit may name without uploading one. clipd ships no font files of its own: it uses
 * DejaVu Sans (free licence, in Debian's fonts-dejavu-core, which clipd already needs for its
 * captions: a service requirement in daemon/ops/os-packages.ts) from the system's font folders, found when a kit first
 * asks for it. When a kit names one,
 * the file is copied into storage once (brand/bundled/), so the stages read it by key exactly as
 * they read an uploaded font and a render never depends on the worker's own font folders.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Refused } from "../domain/errors.js";
import type { Storage } from "../storage/storage.js";

export interface BundledFont {
  /** The name a kit gives (`bundled_font`), which is also the family libass is told. */
  family: string;
  /** File names looked for, best first: captions are set bold, so the bold cut comes first. */
  files: string[];
}

export const BUNDLED_FONTS: BundledFont[] = [
  { family: "DejaVu Sans", files: ["DejaVuSans-Bold.ttf", "DejaVuSans.ttf"] },
];

const FONT_DIRS = [
  "/usr/share/fonts/truetype/dejavu",
  "/usr/share/fonts/dejavu",
  "/usr/share/fonts/TTF",
  "/usr/local/share/fonts",
  "/Library/Fonts",
  "/System/Library/Fonts/Supplemental",
];

/** The first file of the font found in the system folders, or undefined. */
export function findBundledFile(font: BundledFont): string | undefined {
  for (const name of font.files) {
    for (const dir of FONT_DIRS) {
      const file = path.join(dir, name);
      if (existsSync(file)) return file;
    }
  }
  return undefined;
}

export function bundledNames(): string[] {
  return BUNDLED_FONTS.map((f) => f.family);
}

/** Stores the bundled font under brand/bundled/ (once) and answers the kit's font record. */
export async function storeBundledFont(
  storage: Storage,
  family: string,
): Promise<{ key: string; family: string; file_name: string; bundled: true }> {
  const font = BUNDLED_FONTS.find((f) => f.family.toLowerCase() === family.trim().toLowerCase());
  if (!font)
    throw new Refused(
      "invalid_request",
      `body field "bundled_font": unknown font "${family}"; bundled fonts are ${bundledNames().join(", ")}`,
      { context: { field: "bundled_font" } },
    );
  const file = findBundledFile(font);
  if (!file) {
    throw new Refused(
      "font_unavailable",
      `body field "bundled_font": ${font.family} is not installed on this server ` +
        `(Debian: fonts-dejavu-core); upload a TTF or OTF font instead`,
      {
        context: { field: "bundled_font" },
      },
    );
  }
  const fileName = path.basename(file);
  const key = `brand/bundled/${fileName}`;
  if (!(await storage.exists(key))) await storage.write(key, await readFile(file));
  return { key, family: font.family, file_name: fileName, bundled: true };
}
