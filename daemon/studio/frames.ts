/**
 * Pictures the studio starts from: a frame of the source at a time, filled to a 9:16 size, and
 * the plain card drawn for audio-only episodes. ffmpeg takes the frame (it applies the display
 * rotation itself); sharp crops and scales it.
 */
import { randomUUID } from "node:crypto";
import { mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { runFfmpeg, SAFE_INPUT } from "../render/render.js";

/** Runs `fn` in a fresh folder under `<data_dir>/work/`, removed afterwards whatever happens. */
export async function inWorkdir<T>(dataDir: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = path.join(dataDir, "work", `studio-${randomUUID()}`);
  await mkdir(dir, { recursive: true });
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * One frame of `file` at `seconds`, filled to width×height (the middle kept), as PNG bytes. A
 * time past the last frame falls back to the first one.
 */
export async function frameAt(
  file: string,
  seconds: number,
  size: { width: number; height: number },
  o: { workdir: string; signal?: AbortSignal },
): Promise<Buffer> {
  const out = path.join(o.workdir, `frame-${randomUUID().slice(0, 8)}.png`);
  const bound = 2 * Math.max(size.width, size.height);
  const grab = (at: number) =>
    runFfmpeg(
      [
        "-ss",
        Math.max(0, at).toFixed(3),
        ...SAFE_INPUT,
        "-i",
        file,
        "-map",
        "0:v:0",
        // The episode's own picture may be huge: ffmpeg bounds the frame before sharp (on the
        // server's thread pool) ever sees it, at twice the long side asked for.
        "-vf",
        `scale='min(iw,${bound})':'min(ih,${bound})':force_original_aspect_ratio=decrease`,
        "-frames:v",
        "1",
        "-update",
        "1",
        out,
      ],
      { signal: o.signal ?? AbortSignal.timeout(60_000), cwd: o.workdir },
    );
  await grab(seconds);
  let png = await readFile(out).catch(() => undefined);
  if (!png && seconds > 0) {
    await grab(0);
    png = await readFile(out);
  }
  if (!png) throw new Error(`ffmpeg took no frame of ${path.basename(file)} at ${seconds} s`);
  return sharp(png).resize(size.width, size.height, { fit: "cover", position: "centre" }).png().toBuffer();
}

const xml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Words into at most `lines` lines of about `max` characters; what does not fit ends in "…". */
export function wrapWords(text: string, max: number, lines: number): string[] {
  const out: string[] = [];
  let cur = "";
  const words = text.split(/\s+/).filter(Boolean);
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!.length > max ? `${words[i]!.slice(0, max - 1)}…` : words[i]!;
    if (cur && `${cur} ${w}`.length > max) {
      out.push(cur);
      cur = w;
      if (out.length === lines) return [...out.slice(0, -1), `${out[lines - 1]}…`];
    } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * The card of an audio-only clip or episode: the site's blue in a diagonal gradient, a sound-wave
 * mark, the title in up to four lines and a small line under it (the clip's times), as PNG bytes.
 */
export async function card(size: { width: number; height: number }, title: string, sub?: string): Promise<Buffer> {
  const { width: W, height: H } = size;
  const font = Math.round(W * 0.085);
  const lines = wrapWords(title, 16, 4);
  const top = Math.round(H * 0.46) - Math.round(((lines.length - 1) * font * 1.25) / 2);
  const text = lines
    .map(
      (l, i) =>
        `<text x="50%" y="${top + i * Math.round(font * 1.25)}" text-anchor="middle" ` +
        `font-family="DejaVu Sans" font-weight="bold" font-size="${font}" fill="#ffffff">${xml(l)}</text>`,
    )
    .join("");
  const small = Math.round(W * 0.05);
  const under = sub
    ? `<text x="50%" y="${top + lines.length * Math.round(font * 1.25) + small}" ` +
      `text-anchor="middle" font-family="DejaVu Sans" font-size="${small}" fill="#dbeafe">${xml(sub)}</text>`
    : "";
  // Five rounded bars of a sound wave above the title.
  const bar = Math.round(W * 0.035);
  const heights = [0.35, 0.7, 1, 0.6, 0.3].map((k) => Math.round(k * W * 0.16));
  const mid = Math.round(H * 0.25);
  const x0 = Math.round(W / 2 - 4.5 * bar);
  const bars = heights
    .map(
      (h, i) =>
        `<rect x="${x0 + i * 2 * bar}" y="${mid - h / 2}" width="${bar}" height="${h}" ` +
        `rx="${bar / 2}" fill="#ffffff" fill-opacity="0.85"/>`,
    )
    .join("");
  const brand =
    `<text x="50%" y="${H - Math.round(H * 0.06)}" text-anchor="middle" font-family="DejaVu ` +
    `Sans" font-weight="bold" font-size="${small}" fill="#ffffff" fill-opacity="0.7">clipd</text>`;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" ` +
    `stop-color="#2563eb"/><stop offset="1" stop-color="#1e1b4b"/></linearGradient></defs>` +
    `<rect width="100%" height="100%" fill="url(#g)"/>${bars}${text}${under}${brand}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}
