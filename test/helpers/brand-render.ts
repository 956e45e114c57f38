// Renders one short clip through cut (planning) and caption-burn (the one-pass render), the way the
// clip pipeline does, and reads frames back: shared by the aspect-ratio and brand render tests.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import captionBurn from "../../plugins/caption-burn/index.js";
import cut from "../../plugins/cut/index.js";
import type { BrandSnapshot } from "../../daemon/render/brand.js";
import { FIXTURE_DIR, REPO_ROOT } from "./media.js";
import { makeStageCtx, type TestStageCtx } from "./stage-ctx.js";

const sh = (cmd: string, args: string[]) =>
  execFileSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });

/** 5 s, 640×360: navy, with a small moving testsrc2 box near the top middle (the salient region), and a 300 Hz tone. */
export function boxSource(): string {
  mkdirSync(FIXTURE_DIR, { recursive: true });
  const file = path.join(FIXTURE_DIR, "brand-box-v1.mp4");
  if (!existsSync(file)) {
    sh("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "color=c=0x1a2040:s=640x360:d=5:r=30",
      "-f",
      "lavfi",
      "-i",
      "testsrc2=s=60x60:d=5:r=30",
      "-f",
      "lavfi",
      "-i",
      "sine=f=300:d=5",
      "-filter_complex",
      "[0][1]overlay=x='290+20*sin(t)':y=20:shortest=1[v]",
      "-map",
      "[v]",
      "-map",
      "2:a",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      file + ".part.mp4",
    ]);
    renameSync(file + ".part.mp4", file);
  }
  return file;
}

/** Three words at clip times 1.0–1.6, 1.7–2.4 and 2.5–3.4 of a clip cut from source 0.5–4.5. */
export const CLIP = {
  ref: "c1",
  number: 1,
  title: "Shapes and brands in one pass",
  start: 0.5,
  end: 4.5,
  pieces: [{ start: 0.5, end: 4.5 }],
};
export const WORDS = [
  { text: "Hello", start: 1.5, end: 2.1 },
  { text: "there", start: 2.2, end: 2.9 },
  { text: "friends.", start: 3.0, end: 3.9 },
].map((w) => ({ ...w, confidence: 0.9 }));

/** A solid PNG of a known colour, to recognise the logo by its pixels. */
export async function solidPng(file: string, colour: string, w = 200, h = 100): Promise<string> {
  await sharp({ create: { width: w, height: h, channels: 4, background: colour } })
    .png()
    .toFile(file);
  return file;
}

export interface Rendered {
  ctx: TestStageCtx;
  file: string;
  render: Record<string, any>;
  /** The run state caption-burn started from (source, media, transcript, clip, cut), for a restyle. */
  input: Record<string, any>;
}

/** cut (told not to encode) then caption-burn, on `source` with the given options and kit. */
export async function renderClip(o: {
  source: string;
  media: Record<string, unknown>;
  cut: Record<string, unknown>;
  burn?: Record<string, unknown>;
  brand?: BrandSnapshot;
  files?: Record<string, string>;
  words?: typeof WORDS;
  clip?: typeof CLIP;
}): Promise<Rendered> {
  const ctx = await makeStageCtx({ encode: false, preset: "ultrafast", ...o.cut });
  await ctx.storage.putFile("runs/r/source", o.source);
  for (const [key, file] of Object.entries(o.files ?? {})) await ctx.storage.putFile(key, file);
  await ctx.storage.write(
    "runs/r/transcript.json",
    JSON.stringify({ engine: "test", language: "en", duration: 5, words: o.words ?? WORDS, segments: [] }),
  );
  const input = {
    source: { key: "runs/r/source" },
    media: o.media,
    transcript: { key: "runs/r/transcript.json" },
    clip: o.clip ?? CLIP,
    ...(o.brand ? { brand: o.brand } : {}),
  };
  const cutOut = await cut.run(input, ctx);
  const burnCtx = {
    ...ctx,
    options: { style: "bold-punch", preset: "ultrafast", ...o.burn },
    progressCalls: [] as TestStageCtx["progressCalls"],
  };
  const out = await captionBurn.run({ ...input, ...cutOut }, burnCtx);
  return { ctx, render: out.render, file: ctx.fileOf(out.render.key), input: { ...input, ...cutOut } };
}

/** A frame at time `t` as PNG bytes. */
export const frameAt = (file: string, t: number): Buffer =>
  sh("ffmpeg", [
    "-v",
    "error",
    "-ss",
    t.toFixed(3),
    "-i",
    file,
    "-frames:v",
    "1",
    "-f",
    "image2pipe",
    "-c:v",
    "png",
    "-",
  ]);

/** Raw RGB of a region given in fractions of the frame. */
export async function region(
  png: Buffer,
  r: { left: number; top: number; width: number; height: number },
): Promise<{ data: Buffer; pixels: number }> {
  const { width: W = 0, height: H = 0 } = await sharp(png).metadata();
  const box = {
    left: Math.round(W * r.left),
    top: Math.round(H * r.top),
    width: Math.round(W * r.width),
    height: Math.round(H * r.height),
  };
  const data = await sharp(png).extract(box).removeAlpha().raw().toBuffer();
  return { data, pixels: box.width * box.height };
}

/** Share (0..1) of a region's pixels for which `test(r, g, b)` holds. */
export function share(
  reg: { data: Buffer; pixels: number },
  test: (r: number, g: number, b: number) => boolean,
): number {
  let n = 0;
  for (let i = 0; i + 2 < reg.data.length; i += 3) if (test(reg.data[i]!, reg.data[i + 1]!, reg.data[i + 2]!)) n++;
  return n / reg.pixels;
}

/** Writes a frame, scaled to `width`, as docs/screenshots/<name>.png. */
export async function screenshot(png: Buffer, name: string, width = 540): Promise<void> {
  await sharp(png)
    .resize({ width })
    .png({ compressionLevel: 9 })
    .toFile(path.join(REPO_ROOT, "docs", "screenshots", `${name}.png`));
}
