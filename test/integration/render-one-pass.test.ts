// The one-pass render (cut hands a plan, caption-burn renders it from the source) against the
// two-pass render it replaces (cut encodes a caption-free MP4, caption-burn burns over it), on a
// generated source with a hard scene cut inside a clip of two pieces: the same size and length, the
// same captions and hook title at the same times (caption-area pixels), the same crop per scene.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import captionBurn from "../../plugins/caption-burn/index.js";
import cut from "../../plugins/cut/index.js";
import { probeMedia } from "../../daemon/render/render.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CACHE = path.join(ROOT, ".cache/fixtures");
const sh = (cmd: string, args: string[]) =>
  execFileSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });

/**
 * 8 s, 640×360: a moving testsrc2 box on the left over navy, a hard cut at 4 s, then the box on the right over brown.
 */
function sceneSource(): string {
  mkdirSync(CACHE, { recursive: true });
  const file = path.join(CACHE, "one-pass-scenes-v2.mp4");
  if (!existsSync(file)) {
    sh("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "color=c=0x202040:s=640x360:d=4:r=30",
      "-f",
      "lavfi",
      "-i",
      "color=c=0x604020:s=640x360:d=4:r=30",
      "-f",
      "lavfi",
      "-i",
      "testsrc2=s=120x120:d=8:r=30",
      "-f",
      "lavfi",
      "-i",
      "sine=f=300:d=8",
      "-filter_complex",
      [
        "[2]split[b1][b2]",
        "[0][b1]overlay=x=40:y='50+30*t':shortest=1[l]",
        "[1][b2]overlay=x=480:y='50+30*t':shortest=1[r]",
        "[l][r]concat=n=2:v=1:a=0[v]",
      ].join(";"),
      "-map",
      "[v]",
      "-map",
      "3:a",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-g",
      "90",
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

// Two pieces: [0.5, 2.5] and [3, 6] of the source, so the clip is 5 s, its pieces join at 2 s and the
// hard cut (source 4 s) falls at 3 s of the clip.
const PIECES = [
  { start: 0.5, end: 2.5 },
  { start: 3, end: 6 },
];
const WORDS = [
  { text: "Alpha", start: 0.9, end: 1.5 },
  { text: "bravo", start: 1.6, end: 2.1 },
  { text: "charlie", start: 3.3, end: 3.9 },
  { text: "delta.", start: 4.6, end: 5.3 }, // clip 0.4–1.1, 1.1–1.6, 2.3–2.9, 3.6–4.3
].map((w) => ({ ...w, confidence: 0.9 }));
const clipToSource = (t: number) => (t < 2 ? 0.5 + t : 3 + (t - 2));

async function render(encode: boolean, source: string) {
  const cutCtx = await makeStageCtx({ fit: "fill", encode, preset: "ultrafast" });
  await cutCtx.storage.putFile("runs/r/source.mp4", source);
  await cutCtx.storage.write(
    "runs/r/transcript.json",
    JSON.stringify({ engine: "test", language: "en", duration: 8, words: WORDS, segments: [] }),
  );
  const input = {
    source: { key: "runs/r/source.mp4" },
    media: { duration: 8, kind: "video", width: 640, height: 360, has_audio: true },
    transcript: { key: "runs/r/transcript.json" },
    clip: { ref: "c1", number: 1, title: "Left then right", start: 0.5, end: 6, pieces: PIECES },
  };
  const cutOut = await cut.run(input, cutCtx);
  const burnCtx = {
    ...cutCtx,
    options: { style: "bold-punch", hook_title: true, hook_seconds: 2 },
    progressCalls: [] as TestStageCtx["progressCalls"],
  };
  const out = await captionBurn.run({ ...input, ...cutOut }, burnCtx);
  return { ctx: cutCtx, cut: cutOut.cut, render: out.render, file: cutCtx.fileOf(out.render.key) };
}

/** A frame at clip time `t` as a PNG. */
const frame = (file: string, t: number) =>
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

/** Grey pixels of a horizontal band (fractions of the height). */
async function band(png: Buffer, top: number, height: number) {
  const img = sharp(png);
  const { width, height: h } = await img.metadata();
  return img
    .extract({ left: 0, top: Math.round(h! * top), width: width!, height: Math.round(h! * height) })
    .greyscale()
    .raw()
    .toBuffer();
}

const mad = (a: Buffer, b: Buffer) => a.reduce((s, v, i) => s + Math.abs(v - b[i]!), 0) / a.length;

/**
 * Where the 9:16 crop window sits in the source, in source pixels: the rendered frame's middle band
 * (no captions, no hook) scaled back to source size, slid along the source frame at the same time.
 */
async function cropX(rendered: Buffer, sourceFile: string, sourceT: number): Promise<number> {
  const w = 202; // 360 × 1080/1920, the crop's width in the 640×360 source
  const rows = [130, 230]; // source rows shown in the clip's middle band
  const mid = await sharp(rendered)
    .resize(w, 360, { fit: "fill" })
    .extract({ left: 0, top: rows[0]!, width: w, height: rows[1]! - rows[0]! })
    .greyscale()
    .raw()
    .toBuffer();
  const src = await sharp(frame(sourceFile, sourceT))
    .extract({ left: 0, top: rows[0]!, width: 640, height: rows[1]! - rows[0]! })
    .greyscale()
    .raw()
    .toBuffer();
  let best = { x: -1, d: Infinity };
  for (let x = 0; x + w <= 640; x++) {
    let d = 0;
    for (let y = 0; y < rows[1]! - rows[0]!; y += 2)
      for (let i = 0; i < w; i += 2) d += Math.abs(mid[y * w + i]! - src[y * 640 + x + i]!);
    if (d < best.d) best = { x, d };
  }
  return best.x;
}

describe("one-pass render matches the two-pass render", () => {
  const source = sceneSource();
  let one: Awaited<ReturnType<typeof render>>;
  let two: Awaited<ReturnType<typeof render>>;
  beforeAll(async () => {
    [two, one] = [await render(true, source), await render(false, source)];
  }, 300_000);
  afterAll(async () => {
    await Promise.all([one?.ctx.cleanup(), two?.ctx.cleanup()]);
  });

  it("cut hands a plan instead of a file, and the render keeps every field", () => {
    expect(one.cut.key).toBeUndefined();
    expect(one.cut.render_plan).toMatchObject({
      source_key: "runs/r/source.mp4",
      pieces: PIECES,
      width: 1080,
      height: 1920,
      layout: "crop",
    });
    expect(one.cut.crop_plan).toEqual(two.cut.crop_plan);
    for (const k of [
      "key",
      "thumbnail_key",
      "poster_webp_key",
      "ass_key",
      "style",
      "caption_size",
      "caption_position",
      "highlight",
      "hook_title",
      "duration",
      "width",
      "height",
    ]) {
      expect(one.render[k], k).toEqual(k.endsWith("key") ? expect.any(String) : two.render[k]);
    }
  });

  it("has the same size, codecs and length", async () => {
    const [a, b] = await Promise.all([probeMedia(one.file), probeMedia(two.file)]);
    expect(a).toMatchObject({ width: 1080, height: 1920, videoCodec: "h264", audioCodec: "aac" });
    expect(b).toMatchObject({ width: 1080, height: 1920 });
    expect(Math.abs(a.duration - b.duration)).toBeLessThan(0.05);
    expect(Math.abs(a.duration - 5)).toBeLessThan(0.1);
  });

  it("shows the same captions and hook title at the same times", async () => {
    const plain = two.ctx.fileOf(two.cut.key); // the two-pass intermediate: the same picture, no captions
    const checks = [
      { t: 0.9, top: 0.68, height: 0.2, what: "caption, scene 1" },
      { t: 3.9, top: 0.68, height: 0.2, what: "caption, scene 2" },
      { t: 1.0, top: 0.02, height: 0.25, what: "hook title" },
    ];
    for (const c of checks) {
      const [a, b, p] = await Promise.all(
        [one.file, two.file, plain].map(async (f) => band(frame(f, c.t), c.top, c.height)),
      );
      const same = mad(a, b);
      const captioned = mad(a, p);
      console.log(
        `one pass vs two pass at ${c.t} s (${c.what}): ${same.toFixed(2)}; vs no captions: ${captioned.toFixed(2)}`,
      );
      expect(same, c.what).toBeLessThan(2.5);
      expect(captioned, c.what).toBeGreaterThan(4 * same + 2);
    }
  });

  it("shows the same frames at the piece join and at the hard cut", async () => {
    // testsrc2 draws its own clock: a frame early or late at an edge reads as a different picture.
    for (const t of [2 + 1 / 60, 3 + 1 / 60, 4.9]) {
      const [a, b] = await Promise.all([one.file, two.file].map(async (f) => band(frame(f, t), 0.25, 0.4)));
      const next = await band(frame(one.file, t + 1 / 30), 0.25, 0.4);
      console.log(
        `edge at ${t.toFixed(3)} s: one vs two pass ${mad(a, b).toFixed(2)}, vs ` +
          `the next frame ${mad(a, next).toFixed(2)}`,
      );
      expect(mad(a, b), `at ${t.toFixed(3)} s`).toBeLessThan(Math.min(2, mad(a, next) / 3));
    }
  });

  it("crops each scene at the same window", async () => {
    for (const t of [1.0, 4.0]) {
      const [a, b] = await Promise.all([
        cropX(frame(one.file, t), source, clipToSource(t)),
        cropX(frame(two.file, t), source, clipToSource(t)),
      ]);
      console.log(`crop window at ${t} s: one pass x=${a}, two pass x=${b}`);
      expect(Math.abs(a - b)).toBeLessThanOrEqual(3);
    }
    // …and the windows follow the box: left in the first scene, right after the cut.
    expect(await cropX(frame(one.file, 1.0), source, clipToSource(1.0))).toBeLessThan(120);
    expect(await cropX(frame(one.file, 4.0), source, clipToSource(4.0))).toBeGreaterThan(320);
  });

  it("restyles a plan from the source in one pass", async () => {
    const ctx = { ...one.ctx, runId: "00000000-0000-4000-8000-000000000002", options: { style: "boxed" } };
    const out = await captionBurn.run({ cut: one.cut, render: one.render }, ctx);
    expect(out.render).toMatchObject({ style: "boxed", hook_title: true, width: 1080, height: 1920 });
    const got = await probeMedia(one.ctx.fileOf(out.render.key));
    expect(Math.abs(got.duration - 5)).toBeLessThan(0.1);
    const [a, b] = await Promise.all(
      [out.render.key, one.render.key].map(async (k) => band(frame(one.ctx.fileOf(k), 0.9), 0.55, 0.4)),
    );
    expect(mad(a, b)).toBeGreaterThan(2); // another style, drawn where the captions are
  }, 120_000);
});

describe("one-pass render of an audio episode", () => {
  it("renders the background, waveform and captions in one pass", async () => {
    const ctx = await makeStageCtx({ encode: false });
    try {
      const wav = path.join(ctx.workdir, "talk.wav");
      sh("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=220:d=8", "-ar", "48000", wav]);
      await ctx.storage.putFile("runs/r/talk.wav", wav);
      await ctx.storage.write(
        "runs/r/transcript.json",
        JSON.stringify({ engine: "test", language: "en", duration: 8, words: WORDS, segments: [] }),
      );
      const input = {
        source: { key: "runs/r/talk.wav" },
        media: { duration: 8, kind: "audio", has_audio: true },
        transcript: { key: "runs/r/transcript.json" },
        clip: { ref: "a1", number: 1, title: "Audio only", start: 0.5, end: 6, pieces: PIECES },
      };
      const cutOut = await cut.run(input, ctx);
      expect(cutOut.cut.render_plan).toMatchObject({ layout: "audio", background_key: expect.any(String) });
      const out = await captionBurn.run({ ...input, ...cutOut }, { ...ctx, options: {} });
      const got = await probeMedia(ctx.fileOf(out.render.key));
      expect(got).toMatchObject({ width: 1080, height: 1920, videoCodec: "h264", audioCodec: "aac" });
      expect(Math.abs(got.duration - 5)).toBeLessThan(0.15);
      // A caption is drawn while a word is spoken (0.9 s) and not after the last word ends (4.3 s).
      // (Before the first word it already is: a first cue within a second shows from frame 0.)
      const [spoken, after] = await Promise.all(
        [0.9, 4.8].map(async (t) => band(frame(ctx.fileOf(out.render.key), t), 0.68, 0.2)),
      );
      expect(mad(spoken, after)).toBeGreaterThan(3);
    } finally {
      await ctx.cleanup();
    }
  }, 120_000);
});
