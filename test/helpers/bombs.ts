// Decoding bombs for every format clipd parses (issue 27), made here from real files: SVGs that
// blur or nest <use> far past reason, PNG/JPEG/WebP whose headers declare a huge picture, broken
// TTF and OTF fonts, and an M4A whose container header claims 3 hours for 11 s of audio.
import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import zlib from "node:zlib";
import sharp from "sharp";
import { repoRoot } from "./cli.js";
import { TEST_MEDIA } from "./media.js";

/** ~13 KB: every element blurred with an enormous deviation over an enormous filter region. */
export function svgBlurBomb(): Buffer {
  const rects = Array.from(
    { length: 200 },
    (_, i) => `<rect x="${i % 50}" y="${i % 40}" width="900" height="900" filter="url(#b)"/>`,
  ).join("");
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000">` +
      `<filter id="b" x="-500%" y="-500%" width="1100%" height="1100%"><feGaussianBlur stdDeviation="3000"/></filter>` +
      `${rects}</svg>`,
  );
}

/** ~2 KB: ten shapes used ten times, nine levels deep (10^9 shapes once expanded). */
export function svgUseBomb(): Buffer {
  let defs = `<g id="l0">${'<rect width="10" height="10"/>'.repeat(10)}</g>`;
  for (let i = 1; i < 9; i++) defs += `<g id="l${i}">${`<use href="#l${i - 1}"/>`.repeat(10)}</g>`;
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><defs>${defs}</defs><use href="#l8"/></svg>`,
  );
}

/** An SVG within every structural limit that still keeps librsvg busy for seconds at 1024 px. */
export function svgSlowButLegal(): Buffer {
  const rects = Array.from(
    { length: 8 },
    (_, i) => `<rect x="${i}" y="${i}" width="90" height="90" filter="url(#b)"/>`,
  );
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">` +
      `<filter id="b" x="-1000%" y="-1000%" width="2100%" height="2100%"><feGaussianBlur stdDeviation="20"/></filter>` +
      `${rects.join("")}</svg>`,
  );
}

function crc32(buf: Buffer): number {
  return zlib.crc32(buf);
}

/** A real 8×8 PNG whose IHDR (CRC fixed) declares 60000×60000. */
export async function pngHuge(): Promise<Buffer> {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#336699" } })
    .png()
    .toBuffer();
  png.writeUInt32BE(60_000, 16);
  png.writeUInt32BE(60_000, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)) >>> 0, 29);
  return png;
}

/** A real 8×8 baseline JPEG whose SOF0 declares 60000×60000. */
export async function jpegHuge(): Promise<Buffer> {
  const jpg = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#336699" } })
    .jpeg({ mozjpeg: false })
    .toBuffer();
  for (let i = 2; i < jpg.length - 9; i++) {
    if (jpg[i] === 0xff && (jpg[i + 1] === 0xc0 || jpg[i + 1] === 0xc2)) {
      jpg.writeUInt16BE(60_000, i + 5);
      jpg.writeUInt16BE(60_000, i + 7);
      return jpg;
    }
  }
  throw new Error("no SOF marker in the JPEG");
}

/** A real 8×8 lossy WebP whose VP8 frame header declares 16383×16383 (268 MP). */
export async function webpHuge(): Promise<Buffer> {
  const webp = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#336699" } })
    .webp({ quality: 80 })
    .toBuffer();
  const at = webp.indexOf("VP8 ");
  if (at < 0) throw new Error("not a simple lossy WebP");
  // Chunk header (8) + frame tag (3) + start code (3): then 14-bit width and height.
  webp.writeUInt16LE(0x3fff, at + 8 + 6);
  webp.writeUInt16LE(0x3fff, at + 8 + 8);
  return webp;
}

const FONT = path.join(repoRoot, "test", "fixtures", "fonts", "DejaVuSans-Bold.ttf");

/** DejaVu Sans Bold with its table directory pointing far outside the file. */
export async function ttfBroken(): Promise<Buffer> {
  const ttf = Buffer.from(await readFile(FONT));
  const tables = ttf.readUInt16BE(4);
  for (let t = 0; t < tables; t++) {
    ttf.writeUInt32BE(0x7fff0000, 12 + t * 16 + 8); // offset
    ttf.writeUInt32BE(0x7fff0000, 12 + t * 16 + 12); // length
  }
  return ttf;
}

/** An "OTTO" file claiming 65535 tables, then noise. */
export function otfBroken(): Buffer {
  const head = Buffer.alloc(12);
  head.write("OTTO", 0, "latin1");
  head.writeUInt16BE(0xffff, 4);
  return Buffer.concat([head, Buffer.alloc(4096, 0x41)]);
}

/**
 * jfk.wav (11 s) as AAC in M4A whose mvhd and mdhd durations are patched to claim `claimSeconds`;
 * ffprobe then reports that as the format's duration. Written to `dir`; returns the file's path.
 */
export async function lyingM4a(dir: string, claimSeconds = 10_799): Promise<string> {
  const out = path.join(dir, "lying.m4a");
  const src = path.join(dir, "honest.m4a");
  execFileSync("ffmpeg", ["-v", "error", "-y", "-i", TEST_MEDIA.jfkWav, "-c:a", "aac", "-b:a", "64k", src]);
  const b = await readFile(src);
  for (const tag of ["mvhd", "mdhd"]) {
    const i = b.indexOf(tag);
    if (i < 0 || b[i + 4] !== 0) throw new Error(`no version-0 ${tag} box`);
    // version/flags (4), creation (4), modification (4), timescale (4), duration (4)
    const timescale = b.readUInt32BE(i + 4 + 12);
    b.writeUInt32BE(claimSeconds * timescale, i + 4 + 16);
  }
  await writeFile(out, b);
  return out;
}
