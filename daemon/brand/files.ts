/**
 * The files a brand kit or an episode takes, checked before anything is stored: fonts (TTF or OTF,
 * opened with fontkit to read the family name libass must be told), logos (PNG, or SVG rasterised
 * to PNG here and never kept as SVG) and cover art (PNG, JPEG or WebP). Every check looks at the
 * bytes, never at a name or a Content-Type, and every refusal names the field it is about.
 */
import * as fontkit from "fontkit";
import sharp, { type Metadata, type SharpOptions } from "sharp";
import { LimitReached, Refused } from "../domain/errors.js";

export type BrandFileKind = "font" | "logo" | "cover";

/** What the brand block of the config bounds. */
export interface BrandLimits {
  font_max_bytes: number;
  image_max_bytes: number;
  image_max_pixels: number;
}

export interface CheckedFont {
  bytes: Buffer;
  family: string;
  ext: "ttf" | "otf";
}
export interface CheckedImage {
  bytes: Buffer;
  ext: "png" | "jpg" | "webp";
  width: number;
  height: number;
}

const refuse = (field: string, message: string, extra: Record<string, unknown> = {}) =>
  new Refused("unsupported_type", `${field}: ${message}`, { context: { field, ...extra } });

export function maxBytesOf(kind: BrandFileKind, limits: BrandLimits): number {
  return kind === "font" ? limits.font_max_bytes : limits.image_max_bytes;
}

export function tooBig(kind: BrandFileKind, max: number, bytes?: number): LimitReached {
  return new LimitReached("size", "too_big", `the ${kind} file is larger than the limit of ${max} bytes`, {
    context: { field: kind, max_bytes: max, ...(bytes !== undefined ? { bytes } : {}) },
  });
}

/** What a font file's first four bytes say it is. Only plain TrueType and OpenType are taken. */
function fontFormat(head: Buffer): "ttf" | "otf" | "woff" | "woff2" | "collection" | undefined {
  const tag = head.subarray(0, 4).toString("latin1");
  if (head.length >= 4 && head.readUInt32BE(0) === 0x00010000) return "ttf";
  if (tag === "true") return "ttf";
  if (tag === "OTTO") return "otf";
  if (tag === "wOFF") return "woff";
  if (tag === "wOF2") return "woff2";
  if (tag === "ttcf") return "collection";
  return undefined;
}

export function checkFont(bytes: Buffer, limits: BrandLimits): CheckedFont {
  if (!bytes.length) throw refuse("font", "the file is empty; send a TTF or OTF font");
  if (bytes.length > limits.font_max_bytes) throw tooBig("font", limits.font_max_bytes, bytes.length);
  const format = fontFormat(bytes);
  if (format === "woff" || format === "woff2")
    throw refuse("font", `a ${format.toUpperCase()} web font is not taken; send the TTF or OTF it was made from`, {
      detected: format,
    });
  if (format === "collection")
    throw refuse("font", "a font collection (TTC) is not taken; send one TTF or OTF font", { detected: format });
  if (!format) throw refuse("font", "the file is not a TrueType (TTF) or OpenType (OTF) font", { detected: "unknown" });
  let family: string;
  try {
    const font = fontkit.create(bytes) as fontkit.Font;
    family = String(font.familyName ?? "").trim();
    // A font libass could not draw Latin text with is no caption font.
    if (!font.hasGlyphForCodePoint(0x41) || !font.hasGlyphForCodePoint(0x61))
      throw refuse("font", "the font has no glyphs for the Latin letters A and a", { family });
  } catch (err) {
    if (err instanceof Refused) throw err;
    throw refuse("font", "the font file is damaged and could not be read", { detected: format });
  }
  // The family name goes into ASS style lines, where a comma or a newline would break the line.
  family = family
    .replace(/[\u0000-\u001f,]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 100);
  if (!family) throw refuse("font", "the font names no family, so captions could not ask for it", { detected: format });
  return { bytes, family, ext: format };
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function imageFormat(head: Buffer): "png" | "jpeg" | "webp" | "svg" | undefined {
  if (head.subarray(0, 8).equals(PNG)) return "png";
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "jpeg";
  if (head.subarray(0, 4).toString("latin1") === "RIFF" && head.subarray(8, 12).toString("latin1") === "WEBP")
    return "webp";
  const text = head
    .subarray(0, 1024)
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .trimStart();
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i.test(text)) return "svg";
  return undefined;
}

/**
 * An SVG is drawn by librsvg inside sharp. What could reach outside the file is refused first:
 * a DOCTYPE (entities), scripts, and links other than to the file's own fragments.
 */
function refuseActiveSvg(text: string): void {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw refuse("logo", "an SVG with a DOCTYPE or entities is not taken");
  if (/<script|<foreignObject/i.test(text)) throw refuse("logo", "an SVG with scripts or foreign objects is not taken");
  for (const m of text.matchAll(/(?:xlink:)?href\s*=\s*["']([^"']*)["']/gi)) {
    if (!m[1]!.startsWith("#"))
      throw refuse("logo", "an SVG that links to other files or addresses is not taken; embed everything in the file");
  }
  if (/url\(\s*["']?(?!#)/i.test(text))
    throw refuse("logo", "an SVG whose styles load other files or addresses is not taken");
}

async function pixelsOf(
  field: string,
  bytes: Buffer,
  limits: BrandLimits,
  opts: SharpOptions = {},
): Promise<{ width: number; height: number }> {
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: limits.image_max_pixels, ...opts }).metadata();
  } catch {
    throw refuse(field, "the image is damaged and could not be read");
  }
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (!width || !height) throw refuse(field, "the image has no size");
  if (width * height > limits.image_max_pixels) {
    throw new LimitReached(
      "size",
      "too_big",
      `${field}: the image is ${width}×${height}, more than the limit of ${limits.image_max_pixels} pixels`,
      { context: { field, max_pixels: limits.image_max_pixels } },
    );
  }
  return { width, height };
}

/** Long side of a rasterised SVG logo: a logo is at most 40% of a 1920-wide frame. */
const SVG_LONG_SIDE = 1024;

/** A logo as a PNG: PNGs are decoded and written again (dropping their metadata), SVGs rasterised. */
export async function checkLogo(bytes: Buffer, limits: BrandLimits): Promise<CheckedImage> {
  if (!bytes.length) throw refuse("logo", "the file is empty; send a PNG or SVG logo");
  if (bytes.length > limits.image_max_bytes) throw tooBig("logo", limits.image_max_bytes, bytes.length);
  const format = imageFormat(bytes);
  if (format !== "png" && format !== "svg")
    throw refuse("logo", `a logo must be a PNG or SVG file${format ? ` (this is ${format.toUpperCase()})` : ""}`, {
      detected: format ?? "unknown",
    });
  let input = sharp(bytes, { limitInputPixels: limits.image_max_pixels });
  if (format === "svg") {
    refuseActiveSvg(bytes.toString("utf8"));
    // Its declared size is only a scale: it is drawn at the density that makes its long side
    // SVG_LONG_SIDE, so a huge declared size is not refused here (the drawing is bounded below).
    const { width, height } = await pixelsOf(
      "logo",
      bytes,
      { ...limits, image_max_pixels: Number.MAX_SAFE_INTEGER },
      { limitInputPixels: false },
    );
    const density = Math.min(100_000, Math.max(1, (72 * SVG_LONG_SIDE) / Math.max(width, height)));
    input = sharp(bytes, { density, limitInputPixels: limits.image_max_pixels });
  } else await pixelsOf("logo", bytes, limits);
  try {
    const { data, info } = await input.png().toBuffer({ resolveWithObject: true });
    return { bytes: data, ext: "png", width: info.width, height: info.height };
  } catch {
    throw refuse("logo", "the logo could not be drawn");
  }
}

/** Cover art as sent (PNG, JPEG or WebP), once sharp has read it whole. */
export async function checkCover(bytes: Buffer, limits: BrandLimits, field = "cover"): Promise<CheckedImage> {
  if (!bytes.length) throw refuse(field, "the file is empty; send a PNG, JPEG or WebP image");
  if (bytes.length > limits.image_max_bytes) throw tooBig("cover", limits.image_max_bytes, bytes.length);
  const format = imageFormat(bytes);
  if (format !== "png" && format !== "jpeg" && format !== "webp") {
    throw refuse(
      field,
      `cover art must be a PNG, JPEG or WebP image${format ? ` (this is ${format.toUpperCase()})` : ""}`,
      { detected: format ?? "unknown" },
    );
  }
  const { width, height } = await pixelsOf(field, bytes, limits);
  try {
    // decodes every pixel: a truncated file fails here
    await sharp(bytes, { limitInputPixels: limits.image_max_pixels }).stats();
  } catch {
    throw refuse(field, "the image is damaged and could not be read");
  }
  return { bytes, ext: format === "jpeg" ? "jpg" : format, width, height };
}
