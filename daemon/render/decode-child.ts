/**
 * The decoder child: a short-lived Node process that opens one untrusted image or font and answers
 * one message. It is forked by decode-jail.ts, which holds the deadline and the memory cap and kills
 * it when either is passed, so a decoding bomb costs this process, never the server's event loop or
 * the libuv thread pool its file reads share.
 *
 * It imports only sharp, fontkit and Node: Node 24 runs this file as TypeScript source under the
 * tests (type stripping, which rewrites no import paths) and as compiled JS from dist/ otherwise.
 * Only erasable TypeScript belongs here: no enums, no parameter properties.
 */
import { writeFile } from "node:fs/promises";
import * as fontkit from "fontkit";
import sharp from "sharp";

export type DecodeJob =
  /** A TTF/OTF: its family name and whether it can draw Latin text. */
  | { op: "font"; bytes: Uint8Array }
  /** An image's declared size and format, read from its header. */
  | { op: "meta"; bytes: Uint8Array }
  /**
   * An image drawn to PNG. `pixels` bounds the decoded picture (sharp's limitInputPixels); `long_side`
   * asks for an SVG drawn at the density that makes its long side that many pixels; `stats` decodes
   * every pixel and answers only the size (a truncated file fails); `fit` scales into a square of
   * that side; `out` writes the PNG to that path instead of answering with it.
   */
  | {
      op: "raster";
      bytes?: Uint8Array;
      path?: string;
      pixels: number;
      long_side?: number;
      stats?: boolean;
      fit?: number;
      out?: string;
    };

export type DecodeAnswer =
  | { ok: true; family?: string; latin?: boolean; width?: number; height?: number; format?: string; png?: Uint8Array }
  | { ok: false; reason: "damaged" | "no_size" | "too_many_pixels"; width?: number; height?: number; detail?: string };

// One thread and no cache: the child exists for one file, and its memory must stay its file's.
sharp.cache(false);
sharp.concurrency(1);

async function run(job: DecodeJob): Promise<DecodeAnswer> {
  if (job.op === "font") {
    const font = fontkit.create(Buffer.from(job.bytes)) as fontkit.Font;
    const latin = font.hasGlyphForCodePoint(0x41) && font.hasGlyphForCodePoint(0x61);
    return { ok: true, family: String(font.familyName ?? ""), latin };
  }
  const input = job.op === "meta" ? Buffer.from(job.bytes) : job.bytes ? Buffer.from(job.bytes) : job.path;
  if (input === undefined) return { ok: false, reason: "damaged", detail: "no input" };
  if (job.op === "meta") {
    // The header only: an SVG's declared size is a scale, so no pixel limit applies to reading it.
    const meta = await sharp(input, { limitInputPixels: false }).metadata();
    return { ok: true, width: meta.width, height: meta.height, format: meta.format };
  }
  const meta = await sharp(input, { limitInputPixels: false }).metadata();
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (!width || !height) return { ok: false, reason: "no_size" };
  let density: number | undefined;
  if (meta.format === "svg" && job.long_side) density = (72 * job.long_side) / Math.max(width, height);
  const scale = density ? density / 72 : 1;
  const drawnW = Math.round(width * scale);
  const drawnH = Math.round(height * scale);
  if (density !== undefined && (density < 1 || density > 100_000))
    return { ok: false, reason: "too_many_pixels", width: drawnW, height: drawnH };
  if (drawnW * drawnH > job.pixels) return { ok: false, reason: "too_many_pixels", width: drawnW, height: drawnH };
  const image = sharp(input, { limitInputPixels: job.pixels, ...(density ? { density } : {}) });
  if (job.stats) {
    await image.stats();
    return { ok: true, width, height, format: meta.format };
  }
  const shaped = job.fit ? image.resize(job.fit, job.fit, { fit: "inside", withoutEnlargement: true }) : image;
  const { data, info } = await shaped.png().toBuffer({ resolveWithObject: true });
  if (job.out) {
    await writeFile(job.out, data);
    return { ok: true, width: info.width, height: info.height, format: meta.format };
  }
  return { ok: true, width: info.width, height: info.height, format: meta.format, png: data };
}

// Run as a forked child only: one job in, one answer out, then exit. The parent going away ends it.
if (process.send) {
  process.once("disconnect", () => process.exit(0));
  process.once("message", (job: DecodeJob) => {
    run(job)
      .catch((err: unknown): DecodeAnswer => ({ ok: false, reason: "damaged", detail: String(err).slice(0, 300) }))
      .then((answer) => process.send!(answer, () => process.exit(0)))
      .catch(() => process.exit(1));
  });
  process.send({ ready: true });
}
