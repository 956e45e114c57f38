/**
 * The files a brand kit or an episode takes, checked before anything is stored: fonts (TTF or OTF,
 * opened with fontkit to read the family name libass must be told), logos (PNG, or SVG rasterised
 * to PNG here and never kept as SVG) and cover art (PNG, JPEG or WebP). Every check looks at the
 * bytes, never at a name or a Content-Type, and every refusal names the field it is about. fontkit
 * and sharp open the files in a child process with a deadline and a memory cap
 * (daemon/render/decode-jail.ts), never on the server's thread pool; an SVG's structure is bounded
 * first (daemon/render/svg-bounds.ts).
 */
import { LimitReached, Refused } from "../domain/errors.js";
import { decodeUntrusted, DEFAULT_DECODE_LIMITS, type DecodeLimits } from "../render/decode-jail.js";
import { svgProblem } from "../render/svg-bounds.js";
import { imageSize } from "image-size";

export type BrandFileKind = "font" | "logo" | "cover";

/** What the brand block of the config bounds. */
export interface BrandLimits {
  font_max_bytes: number;
  image_max_bytes: number;
  image_max_pixels: number;
  /** How long the decoder child may take over one file (ms), and the memory it may hold (MB). */
  decode_deadline_ms?: number;
  decode_memory_mb?: number;
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

export async function checkFont(bytes: Buffer, limits: BrandLimits, owner?: string): Promise<CheckedFont> {
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
  // fontkit parses every table of a file anyone may send: in the decoder child, under its deadline.
  const read = await decodeUntrusted({ op: "font", bytes }, "font", decodeLimitsOf(limits), owner);
  if (!read.ok) throw refuse("font", "the font file is damaged and could not be read", { detected: format });
  // A font libass could not draw Latin text with is no caption font.
  if (!read.latin)
    throw refuse("font", "the font has no glyphs for the Latin letters A and a", { family: read.family?.trim() });
  // The family name goes into ASS style lines, where a comma or a newline would break the line.
  const family = String(read.family ?? "")
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

/** The decoder child's limits, from the brand block of the config (defaults where it sets none). */
function decodeLimitsOf(limits: BrandLimits): DecodeLimits {
  return {
    deadline_ms: limits.decode_deadline_ms ?? DEFAULT_DECODE_LIMITS.deadline_ms,
    memory_mb: limits.decode_memory_mb ?? DEFAULT_DECODE_LIMITS.memory_mb,
  };
}

const tooManyPixels = (field: string, limits: BrandLimits, width?: number, height?: number) =>
  new LimitReached(
    "size",
    "too_big",
    `${field}: the image ${width && height ? `is ${width}×${height}, ` : "is "}more than the limit of ` +
      `${limits.image_max_pixels} pixels`,
    {
      context: {
        field,
        limit: "image_max_pixels",
        max: limits.image_max_pixels,
        max_pixels: limits.image_max_pixels,
      },
    },
  );

/**
 * A raster whose header declares more pixels than the limit is refused from the header alone
 * (image-size reads only the few bytes that hold the size), before it takes a decoder slot: the
 * child would refuse it too, but only after waiting its turn behind other files. An SVG's declared
 * size is a scale, and a header that cannot be read is left for the child to judge.
 */
function refuseDeclaredSize(field: string, bytes: Buffer, limits: BrandLimits): void {
  const format = imageFormat(bytes);
  if (!format || format === "svg") return;
  let size: { width?: number; height?: number; images?: { width: number; height: number }[] };
  try {
    size = imageSize(bytes);
  } catch {
    return;
  }
  const frames = size.images ?? [{ width: size.width ?? 0, height: size.height ?? 0 }];
  for (const f of frames)
    if (f.width * f.height > limits.image_max_pixels) throw tooManyPixels(field, limits, f.width, f.height);
}

/** Long side of a rasterised SVG logo: a logo is at most 40% of a 1920-wide frame. */
const SVG_LONG_SIDE = 1024;

/**
 * Draws an image in the decoder child and words its refusals for `field`. `job` is the raster job
 * less its input and pixel limit.
 */
async function drawn(
  field: string,
  bytes: Buffer,
  limits: BrandLimits,
  job: { long_side?: number; stats?: boolean },
  owner?: string,
): Promise<{ width: number; height: number; png?: Uint8Array }> {
  refuseDeclaredSize(field, bytes, limits);
  const answer = await decodeUntrusted(
    { op: "raster", bytes, pixels: limits.image_max_pixels, ...job },
    field,
    decodeLimitsOf(limits),
    owner,
  );
  if (answer.ok) return { width: answer.width ?? 0, height: answer.height ?? 0, png: answer.png };
  if (answer.reason === "too_many_pixels") throw tooManyPixels(field, limits, answer.width, answer.height);
  if (answer.reason === "no_size") throw refuse(field, "the image has no size");
  throw refuse(field, "the image is damaged and could not be read");
}

/** A logo as a PNG: PNGs are decoded and written again (dropping their metadata), SVGs rasterised. */
export async function checkLogo(bytes: Buffer, limits: BrandLimits, owner?: string): Promise<CheckedImage> {
  if (!bytes.length) throw refuse("logo", "the file is empty; send a PNG or SVG logo");
  if (bytes.length > limits.image_max_bytes) throw tooBig("logo", limits.image_max_bytes, bytes.length);
  const format = imageFormat(bytes);
  if (format !== "png" && format !== "svg")
    throw refuse("logo", `a logo must be a PNG or SVG file${format ? ` (this is ${format.toUpperCase()})` : ""}`, {
      detected: format ?? "unknown",
    });
  if (format === "svg") {
    const text = bytes.toString("utf8");
    refuseActiveSvg(text);
    const problem = svgProblem(text);
    if (problem)
      throw new LimitReached("size", "too_complex", `logo: ${problem.message}`, {
        context: { field: "logo", limit: `svg.${problem.limit}`, max: problem.max, found: problem.found },
      });
  }
  // An SVG's declared size is only a scale: it is drawn at the density that makes its long side
  // SVG_LONG_SIDE, and the pixel limit bounds that drawing.
  const img = await drawn("logo", bytes, limits, format === "svg" ? { long_side: SVG_LONG_SIDE } : {}, owner);
  if (!img.png) throw refuse("logo", "the logo could not be drawn");
  return { bytes: Buffer.from(img.png), ext: "png", width: img.width, height: img.height };
}

/** Cover art as sent (PNG, JPEG or WebP), once the decoder child has read every pixel of it. */
export async function checkCover(
  bytes: Buffer,
  limits: BrandLimits,
  field = "cover",
  owner?: string,
): Promise<CheckedImage> {
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
  // stats decodes every pixel: a truncated file fails here.
  const { width, height } = await drawn(field, bytes, limits, { stats: true }, owner);
  return { bytes, ext: format === "jpeg" ? "jpg" : format, width, height };
}
