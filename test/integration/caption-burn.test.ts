// caption-burn against real ffmpeg/libass: a clip is cut from generated speech over testsrc2, then
// captions are burned in and frames are compared pixel by pixel with the uncaptioned clip.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import captionBurn from "../../plugins/caption-burn/index.js";
import cut from "../../plugins/cut/index.js";
import { DEFAULT_PRESET, probeMedia, profileOfPreset } from "../../daemon/render/render.js";
import { fixtureMedia, muxTalk } from "../helpers/media.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CACHE = path.join(ROOT, ".cache/fixtures");
const JFK = fixtureMedia("jfk.wav");
const SENTENCES = ["Captions make clips easy to follow.", "Every word appears when it is spoken."];

type W = { text: string; start: number; end: number; confidence: number };
const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"] }).toString();
const seconds = (file: string) =>
  Number(sh("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file]));

/** espeak-ng speech, sentence by sentence after a 1 s lead silence, over a testsrc2 picture. */
function talkFixture(): { video: string; words: W[]; duration: number } {
  const id = createHash("sha1")
    .update(JSON.stringify(SENTENCES) + "burn-v1")
    .digest("hex")
    .slice(0, 10);
  const dir = path.join(CACHE, `burn-${id}`);
  mkdirSync(dir, { recursive: true });
  const gap = path.join(dir, "gap.wav");
  if (!existsSync(gap)) sh("sox", ["-D", "-n", "-r", "22050", "-c", "1", "-b", "16", gap, "trim", "0", "1"]);
  const words: W[] = [];
  const parts = [gap];
  let t = 1;
  SENTENCES.forEach((s, i) => {
    const wav = path.join(dir, `s${i}.wav`);
    if (!existsSync(wav)) sh("espeak-ng", ["-v", "en-us", "-s", "150", "-w", wav, s]);
    const len = seconds(wav);
    const ws = s.split(" ");
    const chars = ws.reduce((a, w) => a + w.length + 1, 0);
    let u = t + 0.1;
    for (const w of ws) {
      const d = ((len - 0.25) * (w.length + 1)) / chars;
      words.push({ text: w, start: +u.toFixed(3), end: +(u + d * 0.9).toFixed(3), confidence: 0.9 });
      u += d;
    }
    parts.push(wav, gap);
    t += len + 1;
  });
  const audio = path.join(dir, "speech.wav");
  if (!existsSync(audio)) sh("sox", ["-D", ...parts, audio]);
  const video = muxTalk(audio, path.join(dir, "talk.mp4"), "testsrc2=s=1280x720:r=30");
  return { video, words, duration: seconds(video) };
}

async function frame(file: string, at: number): Promise<Buffer> {
  const png = execFileSync("ffmpeg", [
    "-v",
    "error",
    "-ss",
    at.toFixed(3),
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
  return png;
}

/** Mean absolute difference (0–255) of two frames inside a region given as fractions of the frame. */
async function regionDiff(a: Buffer, b: Buffer, region: { top: number; height: number }): Promise<number> {
  const meta = await sharp(a).metadata();
  const box = {
    left: 0,
    top: Math.round(meta.height! * region.top),
    width: meta.width!,
    height: Math.round(meta.height! * region.height),
  };
  const [ra, rb] = await Promise.all([a, b].map((x) => sharp(x).extract(box).removeAlpha().raw().toBuffer()));
  let sum = 0;
  for (let i = 0; i < ra.length; i++) sum += Math.abs(ra[i] - rb[i]);
  return sum / ra.length;
}

async function cutClip(
  ctx: TestStageCtx,
  f: { video: string; words: W[]; duration: number },
  kind: "video" | "audio",
  title: string,
) {
  const ext = path.extname(f.video);
  await ctx.storage.putFile(`runs/r/source${ext}`, f.video);
  await ctx.storage.write(
    "runs/r/transcript.json",
    JSON.stringify({ engine: "test", language: "en", duration: f.duration, words: f.words, segments: [] }),
  );
  const end = Math.floor(f.duration * 100) / 100;
  const out = await cut.run(
    {
      source: { key: `runs/r/source${ext}`, name: `source${ext}`, bytes: 1 },
      media:
        kind === "video"
          ? { duration: f.duration, kind, width: 1280, height: 720, rotation: 0, has_audio: true }
          : { duration: f.duration, kind, rotation: 0, has_audio: true },
      transcript: { key: "runs/r/transcript.json", engine: "test", language: "en", duration: f.duration, files: {} },
      clip: { ref: "cb01", number: 1, title, start: 0, end, pieces: [{ start: 0, end }] },
    },
    { ...ctx, options: {} },
  );
  return out.cut;
}

describe("caption-burn", () => {
  let talk: ReturnType<typeof talkFixture>;
  let ctx: TestStageCtx | undefined;
  beforeAll(() => {
    talk = talkFixture();
  });
  afterEach(async () => ctx?.cleanup());

  it("burns captions that show while words are spoken and nowhere else", async () => {
    ctx = await makeStageCtx({ style: "bold-punch", caption_position: "bottom", caption_size: "large" });
    const clip = await cutClip(ctx, talk, "video", "Captions");
    const out = await captionBurn.run({ cut: clip }, ctx);
    expect(out.render).toMatchObject({
      key: `runs/${ctx.runId}/clip-cb01-captioned.mp4`,
      style: "bold-punch",
      width: 1080,
      height: 1920,
      caption_size: "large",
    });
    const file = ctx.fileOf(out.render.key);
    const got = await probeMedia(file);
    expect(got).toMatchObject({
      width: 1080,
      height: 1920,
      videoCodec: "h264",
      videoProfile: profileOfPreset(DEFAULT_PRESET),
      pixFmt: "yuv420p",
      audioCodec: "aac",
    });
    expect(Math.abs(got.duration - clip.duration)).toBeLessThanOrEqual(0.1);

    const plain = ctx.fileOf(clip.key);
    const captionArea = { top: 0.6, height: 0.22 };
    const spoken = (talk.words[2].start + talk.words[2].end) / 2;
    const withCaption = await regionDiff(await frame(file, spoken), await frame(plain, spoken), captionArea);
    const silent = await regionDiff(await frame(file, 0.4), await frame(plain, 0.4), { top: 0, height: 1 });
    expect(withCaption).toBeGreaterThan(8);
    expect(silent).toBeLessThan(withCaption / 4);
    expect(silent).toBeLessThan(2);

    const poster = await sharp(ctx.fileOf(out.render.thumbnail_key)).metadata();
    expect(poster).toMatchObject({ format: "jpeg", width: 1080, height: 1920 });
    expect((await sharp(ctx.fileOf(out.render.poster_webp_key)).metadata()).format).toBe("webp");
  });

  it("restyles by stepping size and position from the previous render, with a hook title", async () => {
    ctx = await makeStageCtx({ style: "pop-up", caption_size: "smaller", caption_position: "up", hook_title: true });
    const clip = await cutClip(ctx, talk, "video", "Why captions matter");
    const out = await captionBurn.run(
      { cut: clip, render: { style: "bold-punch", caption_size: "large", caption_position: "bottom" } },
      ctx,
    );
    expect(out.render).toMatchObject({
      style: "pop-up",
      caption_size: "medium",
      caption_position: "lower",
      highlight: true,
    });
    const ass = (await ctx.storage.read(out.render.ass_key)).toString();
    expect(ass).toMatch(/Hook,,0,0,0,,\{\\fad\(0,250\)\}Why captions(\\N| )matter/);
    expect(ass).toMatch(/\\alpha&HFF&/);
    // The hook box sits at the top during the first seconds, while nothing is spoken.
    const file = ctx.fileOf(out.render.key);
    const top = await regionDiff(await frame(file, 0.5), await frame(ctx.fileOf(clip.key), 0.5), {
      top: 0.05,
      height: 0.12,
    });
    expect(top).toBeGreaterThan(8);
  });

  it("rejects an unknown style with the list of known ones", async () => {
    ctx = await makeStageCtx({ style: "no-such-style" });
    await ctx.storage.write("runs/x/clip.mp4", "x");
    await expect(captionBurn.run({ cut: { key: "runs/x/clip.mp4" } }, ctx)).rejects.toMatchObject({
      code: "bad_options",
      message: expect.stringMatching(/bold-punch/),
    });
  });

  it("captions the audio-only jfk.wav clip end to end", async () => {
    ctx = await makeStageCtx({ style: "karaoke", hook_title: "Ask not" });
    // Hand-written word times for the recording (input data, roughly matching the speech).
    const text =
      "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.";
    const times = [
      0.3, 0.7, 1.0, 1.2, 1.6, 3.3, 3.7, 4.2, 4.4, 4.6, 5.1, 5.3, 5.5, 5.8, 6.9, 7.3, 7.5, 7.7, 8.0, 8.3, 8.6, 8.8, 9.1,
    ];
    const words = text
      .split(" ")
      .map((w, i) => ({ text: w, start: times[i], end: (times[i + 1] ?? 10.3) - 0.05, confidence: 0.9 }));
    const clip = await cutClip(ctx, { video: JFK, words, duration: seconds(JFK) }, "audio", "Ask not");
    const out = await captionBurn.run({ cut: clip }, ctx);
    const got = await probeMedia(ctx.fileOf(out.render.key));
    expect(got).toMatchObject({ width: 1080, height: 1920, videoCodec: "h264", audioCodec: "aac" });
    expect(Math.abs(got.duration - 11)).toBeLessThanOrEqual(0.15);
    const at = 4.4;
    const diff = await regionDiff(await frame(ctx.fileOf(out.render.key), at), await frame(ctx.fileOf(clip.key), at), {
      top: 0.6,
      height: 0.22,
    });
    expect(diff).toBeGreaterThan(5);
  });
});
