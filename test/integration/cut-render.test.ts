// Cut (and caption-burn) rendering guarantees against real ffmpeg, on generated sources whose
// pixels say what they are: a frame counter in binary stripes, a salient box that jumps from the
// left to the right at a hard cut, red and blue edge bars. Fixtures are cached under .cache/fixtures.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import captionBurn from "../../plugins/caption-burn/index.js";
import cut from "../../plugins/cut/index.js";
import { probeMedia } from "../../daemon/render/render.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";
import { gallery } from "../helpers/gallery.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CACHE = path.join(ROOT, ".cache/fixtures");
const FPS = 30;
const BITS = 10;

const sh = (cmd: string, args: string[]) =>
  execFileSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });

function cached(name: string, make: (out: string) => void): string {
  mkdirSync(CACHE, { recursive: true });
  const file = path.join(CACHE, name);
  if (!existsSync(file)) {
    make(file + ".part.mp4");
    renameSync(file + ".part.mp4", file);
  }
  return file;
}

/**
 * 12 s at 30 fps whose frame number is written as 10 binary stripes (bit 0 on the left), one keyframe every 250 frames.
 */
const counterVideo = () =>
  cached("counter-g250-v1.mp4", (out) =>
    sh("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      `color=c=black:s=160x90:r=${FPS}:d=12`,
      "-f",
      "lavfi",
      "-i",
      "sine=f=440:d=12",
      "-vf",
      `geq=lum='16+219*mod(floor(N/pow(2\\,floor(X*${BITS}/W)))\\,2)':cb=128:cr=128,scale=640:360:flags=neighbor`,
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-g",
      "250",
      "-keyint_min",
      "250",
      "-sc_threshold",
      "0",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-shortest",
      out,
    ]),
  );

/** 4 s: a colourful moving box on the left over navy, then a hard cut to the box on the right over brown. */
const sceneVideo = () =>
  cached("scenes-left-right-v1.mp4", (out) =>
    sh("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      `color=c=0x202040:s=640x360:d=2:r=${FPS}`,
      "-f",
      "lavfi",
      "-i",
      `color=c=0x604020:s=640x360:d=2:r=${FPS}`,
      "-f",
      "lavfi",
      "-i",
      `testsrc2=s=110x110:d=4:r=${FPS}`,
      "-f",
      "lavfi",
      "-i",
      "sine=f=300:d=4",
      "-filter_complex",
      [
        "[2]split[b1][b2]",
        "[0][b1]overlay=x=30:y='60+40*t':shortest=1[l]",
        "[1][b2]overlay=x=500:y='60+40*(t-2)':shortest=1[r]",
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
      "250",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      out,
    ]),
  );

/** 2 s of grey with a red bar on the far left and a blue bar on the far right. */
const edgesVideo = () =>
  cached("edges-red-blue-v1.mp4", (out) =>
    sh("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      `color=c=0x808080:s=640x360:d=2:r=${FPS}`,
      "-f",
      "lavfi",
      "-i",
      "sine=d=2",
      "-vf",
      "drawbox=x=0:y=0:w=24:h=ih:c=red:t=fill,drawbox=x=iw-24:y=0:w=24:h=ih:c=blue:t=fill",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-shortest",
      out,
    ]),
  );

/** Output frame number `n` as raw RGB. */
async function frameAt(file: string, n: number) {
  const png = sh("ffmpeg", [
    "-v",
    "error",
    "-i",
    file,
    "-vf",
    `select=eq(n\\,${n})`,
    "-frames:v",
    "1",
    "-f",
    "image2pipe",
    "-c:v",
    "png",
    "-",
  ]);
  return sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
}

/** Reads the stripe counter from a pad-layout frame (the picture fills the width, centred vertically). */
async function counterAt(file: string, n: number): Promise<number> {
  const { data, info } = await frameAt(file, n);
  const y = Math.floor(info.height / 2);
  let value = 0;
  for (let b = 0; b < BITS; b++) {
    const x = Math.floor(((b + 0.5) * info.width) / BITS);
    if (data[(y * info.width + x) * 3] > 128) value += 2 ** b;
  }
  return value;
}

const frameCount = (file: string) =>
  Number(
    sh("ffprobe", [
      "-v",
      "error",
      "-count_frames",
      "-select_streams",
      "v:0",
      "-show_entries",
      "stream=nb_read_frames",
      "-of",
      "csv=p=0",
      file,
    ])
      .toString()
      .trim(),
  );

/** Share of pixels in a region that are strongly coloured (max−min channel > 100). */
function colourful(data: Buffer, width: number, box: { top: number; bottom: number }): number {
  let hits = 0;
  let total = 0;
  for (let y = box.top; y < box.bottom; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const c = Math.max(data[i], data[i + 1], data[i + 2]) - Math.min(data[i], data[i + 1], data[i + 2]);
      total++;
      if (c > 100) hits++;
    }
  }
  return hits / total;
}

function mean(data: Buffer, width: number, box: { top: number; bottom: number }): number[] {
  const sum = [0, 0, 0];
  for (let y = box.top; y < box.bottom; y++)
    for (let x = 0; x < width; x++) for (let c = 0; c < 3; c++) sum[c] += data[(y * width + x) * 3 + c];
  const n = (box.bottom - box.top) * width;
  return sum.map((s) => s / n);
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(dir, path.join(d.parentPath, d.name)));
}

async function videoInput(ctx: TestStageCtx, file: string, clip: Record<string, unknown>) {
  await ctx.storage.putFile("runs/r/source.mp4", file);
  const duration = (await probeMedia(file)).duration;
  return {
    source: { key: "runs/r/source.mp4", name: "source.mp4", bytes: 1 },
    media: { duration, kind: "video", width: 640, height: 360, rotation: 0, has_audio: true },
    clip,
  };
}

describe("cut rendering", () => {
  let ctx: TestStageCtx | undefined;
  beforeAll(() => {
    counterVideo();
    sceneVideo();
    edgesVideo();
  });
  afterEach(async () => ctx?.cleanup());

  it("cuts frame-accurately between keyframes of a long-GOP source, across a join", async () => {
    const src = counterVideo();
    const keyframes = sh("ffprobe", [
      "-v",
      "error",
      "-select_streams",
      "v:0",
      "-skip_frame",
      "nokey",
      "-show_entries",
      "frame=pts_time",
      "-of",
      "csv=p=0",
      src,
    ])
      .toString()
      .trim()
      .split("\n")
      .map(Number);
    expect(keyframes.filter((t) => t > 0 && t < 8)).toEqual([]); // nothing to snap to near the cuts
    ctx = await makeStageCtx({ fit: "whole", background: "black", width: 540 });
    const pieces = [
      { start: 4.5, end: 5.5 },
      { start: 7.2, end: 8.0 },
    ];
    const out = await cut.run(await videoInput(ctx, src, { ref: "fa01", start: 4.5, end: 8, pieces }), ctx);
    const file = ctx.fileOf(out.cut.key);
    expect(frameCount(file)).toBe(54);
    expect(await counterAt(file, 0)).toBe(135);
    expect(await counterAt(file, 29)).toBe(164);
    expect(await counterAt(file, 30)).toBe(216);
    expect(await counterAt(file, 53)).toBe(239);
    expect(Math.abs((await probeMedia(file)).duration - 1.8)).toBeLessThanOrEqual(0.05);
  });

  it("fit=fill crops per scene: the crop follows the salient box across a hard cut", async () => {
    ctx = await makeStageCtx({ fit: "fill", width: 360 });
    const out = await cut.run(
      await videoInput(ctx, sceneVideo(), { ref: "sc01", start: 0.5, end: 3.5, pieces: [{ start: 0.5, end: 3.5 }] }),
      ctx,
    );
    const plan = out.cut.crop_plan as Array<{ start: number; end: number; x: number }>;
    expect(plan).toHaveLength(2);
    expect(plan[0].end).toBeCloseTo(1.5, 1);
    expect(plan[0].x).toBeLessThan(0.3);
    expect(plan[1].x).toBeGreaterThan(0.7);
    const file = ctx.fileOf(out.cut.key);
    // The box is in frame in both scenes, including the first frame after the cut.
    for (const n of [10, 44, 45, 80]) {
      const { data, info } = await frameAt(file, n);
      expect(colourful(data, info.width, { top: 0, bottom: info.height }), `frame ${n}`).toBeGreaterThan(0.05);
    }
  });

  it("fit=fill gives a short scene at the clip's start its own crop: a clip from 0.27 s before a cut", async () => {
    ctx = await makeStageCtx({ fit: "fill", width: 360 });
    const out = await cut.run(
      await videoInput(ctx, sceneVideo(), {
        ref: "sc03",
        start: 1.73,
        end: 3.73,
        pieces: [{ start: 1.73, end: 3.73 }],
      }),
      ctx,
    );
    const plan = out.cut.crop_plan as Array<{ start: number; end: number; x: number }>;
    expect(plan[0].end).toBeCloseTo(0.27, 1);
    expect(plan[0].x).toBeLessThan(0.3);
    expect(plan.at(-1)!.x).toBeGreaterThan(0.7);
    const file = ctx.fileOf(out.cut.key);
    // Frames 0–7 are the left scene's last 8, framed on its box; frame 8 on is the right scene's.
    for (const n of [0, 3, 7, 8, 9, 30, 55]) {
      const { data, info } = await frameAt(file, n);
      expect(colourful(data, info.width, { top: 0, bottom: info.height }), `frame ${n}`).toBeGreaterThan(0.05);
    }
    const png = (f: Awaited<ReturnType<typeof frameAt>>) =>
      sharp(f.data, { raw: { width: f.info.width, height: f.info.height, channels: 3 } })
        .png()
        .toBuffer();
    await gallery("case-edge-crop", await Promise.all([0, 7, 8, 30].map(async (n) => png(await frameAt(file, n)))));
  });

  it("fit=crop with crop_focus=center keeps one centred crop (and misses the box)", async () => {
    ctx = await makeStageCtx({ fit: "crop", crop_focus: "center", width: 360 });
    const out = await cut.run(
      await videoInput(ctx, sceneVideo(), { ref: "sc02", start: 0.5, end: 3.5, pieces: [{ start: 0.5, end: 3.5 }] }),
      ctx,
    );
    expect(out.cut.crop_plan).toBeUndefined();
    const { data, info } = await frameAt(ctx.fileOf(out.cut.key), 10);
    expect(colourful(data, info.width, { top: 0, bottom: info.height })).toBeLessThan(0.01);
  });

  it.each([
    ["black", (c: number[]) => Math.max(...c) < 12],
    ["blur", (c: number[]) => Math.min(...c) > 60],
    ["navy", (c: number[]) => c[2] > 100 && c[0] < 12 && c[1] < 12],
  ] as const)("fit=whole shows the whole picture on background=%s", async (background, bandOk) => {
    ctx = await makeStageCtx({ fit: "whole", background, width: 360 });
    const out = await cut.run(
      await videoInput(ctx, edgesVideo(), { ref: "wh01", start: 0, end: 1.5, pieces: [{ start: 0, end: 1.5 }] }),
      ctx,
    );
    const { data, info } = await frameAt(ctx.fileOf(out.cut.key), 10);
    expect(info).toMatchObject({ width: 360, height: 640 });
    // 640x360 → 360x202 in the middle: both edge bars are there, so nothing was cropped away.
    const row = (y: number, x: number) => [...data.subarray((y * 360 + x) * 3, (y * 360 + x) * 3 + 3)];
    const [red, blue] = [row(320, 3), row(320, 356)];
    expect(red[0]).toBeGreaterThan(180);
    expect(red[2]).toBeLessThan(80);
    expect(blue[2]).toBeGreaterThan(180);
    expect(blue[0]).toBeLessThan(80);
    expect(bandOk(mean(data, 360, { top: 20, bottom: 180 }))).toBe(true);
  });

  it("rejects an unknown background colour before rendering", async () => {
    ctx = await makeStageCtx({ fit: "whole", background: "plaid", width: 360 });
    await expect(
      cut.run(
        await videoInput(ctx, edgesVideo(), { ref: "wh02", start: 0, end: 1, pieces: [{ start: 0, end: 1 }] }),
        ctx,
      ),
    ).rejects.toMatchObject({ code: "bad_options" });
  });

  it("an abort mid-render leaves no output in storage and no partial file", async () => {
    const ac = new AbortController();
    ctx = await makeStageCtx({ fit: "crop", crop_focus: "center" }, { signal: ac.signal });
    const input = await videoInput(ctx, counterVideo(), {
      ref: "ab01",
      start: 0,
      end: 12,
      pieces: [{ start: 0, end: 12 }],
    });
    ctx.progress = (p, note) => {
      if (note === "cutting" && p > 4) ac.abort(new Error("cancelled by test"));
    };
    await expect(cut.run(input, ctx)).rejects.toThrow(/cancelled by test/);
    expect(filesUnder(ctx.storage.root)).toEqual(["runs/r/source.mp4"]);
    expect(filesUnder(ctx.workdir).filter((f) => f.endsWith(".mp4"))).toEqual([]);
  });

  it("an ffmpeg failure on a corrupt source fails with render_failed and leaves nothing behind", async () => {
    ctx = await makeStageCtx({ width: 360 });
    await ctx.storage.write("runs/r/source.mp4", Buffer.alloc(64 * 1024, 7));
    const input = {
      source: { key: "runs/r/source.mp4", name: "source.mp4", bytes: 1 },
      media: { duration: 5, kind: "video", width: 640, height: 360, rotation: 0, has_audio: true },
      clip: { ref: "bad1", start: 0, end: 2, pieces: [{ start: 0, end: 2 }] },
    };
    await expect(cut.run(input, ctx)).rejects.toMatchObject({ code: "render_failed" });
    expect(filesUnder(ctx.storage.root)).toEqual(["runs/r/source.mp4"]);
    expect(filesUnder(ctx.workdir).filter((f) => f.endsWith(".mp4"))).toEqual([]);
  });

  it("caption-burn aborted mid-render leaves no captioned clip, poster or ASS in storage", async () => {
    ctx = await makeStageCtx({ fit: "crop", crop_focus: "center" });
    const made = await cut.run(
      await videoInput(ctx, counterVideo(), { ref: "ab02", start: 0, end: 12, pieces: [{ start: 0, end: 12 }] }),
      ctx,
    );
    const before = filesUnder(ctx.storage.root).sort();
    const ac = new AbortController();
    const burnCtx: TestStageCtx = {
      ...ctx,
      signal: ac.signal,
      options: { style: "bold-punch" },
      progress: (p, note) => {
        if (note === "burning captions" && p > 4) ac.abort(new Error("cancelled by test"));
      },
    };
    await expect(captionBurn.run({ cut: made.cut }, burnCtx)).rejects.toThrow(/cancelled by test/);
    expect(filesUnder(ctx.storage.root).sort()).toEqual(before);
    expect(filesUnder(ctx.workdir).filter((f) => f.endsWith(".mp4"))).toEqual([]);
  });
});
