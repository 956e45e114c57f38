// Cut stage against real ffmpeg: a generated talking "episode" (espeak-ng speech over testsrc2)
// and the real jfk.wav recording. Fixtures are cached under .cache/fixtures.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import cut from "../../plugins/cut/index.js";
import { attentionFocus } from "../../plugins/cut/focus.js";
import { DEFAULT_PRESET, probeMedia, profileOfPreset } from "../../daemon/render/render.js";
import { fixtureMedia, muxTalk } from "../helpers/media.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CACHE = path.join(ROOT, ".cache/fixtures");
const JFK = fixtureMedia("jfk.wav");
const SENTENCES = [
  "Why do clips need captions?",
  "Most people watch videos with the sound off.",
  "So the words must be on the screen.",
];

interface Fixture {
  video: string;
  words: Array<{ text: string; start: number; end: number; confidence: number }>;
  duration: number;
}

const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"] }).toString();
const seconds = (file: string) =>
  Number(sh("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file]));

/** Speech made sentence by sentence, so each sentence's time is known; words share it by length. */
function speechFixture(): Fixture {
  const id = createHash("sha1")
    .update(JSON.stringify(SENTENCES) + "v1")
    .digest("hex")
    .slice(0, 10);
  const dir = path.join(CACHE, `talk-${id}`);
  mkdirSync(dir, { recursive: true });
  const words: Fixture["words"] = [];
  let t = 0.5;
  const parts: string[] = [path.join(dir, "lead.wav")];
  if (!existsSync(parts[0]))
    sh("sox", ["-D", "-n", "-r", "22050", "-c", "1", "-b", "16", parts[0], "trim", "0", "0.5"]);
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
    parts.push(wav, parts[0]);
    t += len + 0.5;
  });
  const audio = path.join(dir, "speech.wav");
  if (!existsSync(audio)) sh("sox", ["-D", ...parts, audio]);
  const video = muxTalk(audio, path.join(dir, "talk.mp4"), "testsrc2=s=1280x720:r=30", ["-g", "60"]);
  return { video, words, duration: seconds(video) };
}

async function stageInput(ctx: TestStageCtx, f: Fixture, kind: "video" | "audio", clip: Record<string, unknown>) {
  const ext = path.extname(f.video);
  await ctx.storage.putFile(`runs/r/source${ext}`, f.video);
  await ctx.storage.write(
    "runs/r/transcript.json",
    JSON.stringify({ engine: "test", language: "en", duration: f.duration, words: f.words, segments: [] }),
  );
  return {
    source: { key: `runs/r/source${ext}`, name: `source${ext}`, bytes: 1 },
    media:
      kind === "video"
        ? { duration: f.duration, kind, width: 1280, height: 720, rotation: 0, has_audio: true }
        : { duration: f.duration, kind, rotation: 0, has_audio: true },
    transcript: { key: "runs/r/transcript.json", engine: "test", language: "en", duration: f.duration, files: {} },
    clip,
  };
}

describe("cut", () => {
  let talk: Fixture;
  let ctx: TestStageCtx | undefined;
  beforeAll(() => {
    talk = speechFixture();
  });
  afterEach(async () => ctx?.cleanup());

  it("joins two pieces frame-accurately into a 1080x1920 H.264/AAC clip with re-timed words", async () => {
    ctx = await makeStageCtx({ fit: "crop" });
    const pieces = [
      { start: 0.4, end: talk.words[4].end + 0.2 },
      { start: talk.words[5].start - 0.1, end: (talk.words[9].end + talk.words[10].start) / 2 },
    ];
    const input = await stageInput(ctx, talk, "video", {
      ref: "c0de",
      number: 1,
      title: "Captions",
      start: 0.4,
      end: pieces[1].end,
      pieces,
    });
    const out = await cut.run(input, ctx);
    const want = pieces.reduce((a, p) => a + p.end - p.start, 0);
    expect(out.cut).toMatchObject({ key: `runs/${ctx.runId}/clip-c0de.mp4`, width: 1080, height: 1920, ref: "c0de" });
    const got = await probeMedia(ctx.fileOf(out.cut.key));
    expect(got).toMatchObject({
      width: 1080,
      height: 1920,
      videoCodec: "h264",
      audioCodec: "aac",
      pixFmt: "yuv420p",
      videoProfile: profileOfPreset(DEFAULT_PRESET),
    });
    expect(Math.abs(got.duration - want)).toBeLessThanOrEqual(0.15);
    const words = JSON.parse((await ctx.storage.read(out.cut.words_key)).toString()).words;
    expect(words.map((w: any) => w.text)).toEqual(talk.words.slice(0, 10).map((w) => w.text));
    expect(words[0].start).toBeCloseTo(talk.words[0].start - 0.4, 2);
    // The first word of the second piece sits right after the first piece's length.
    expect(words[5].start).toBeCloseTo(pieces[0].end - pieces[0].start + 0.1, 2);
    for (const w of words) expect(w.end).toBeLessThanOrEqual(want + 1e-6);
    expect(ctx.progressCalls.at(-1)?.[0]).toBe(100);
    expect(ctx.progressCalls.some(([p]) => p > 10 && p < 100)).toBe(true);
  });

  it.each(["blur", "pad"])("lays out a landscape source with fit=%s", async (fit) => {
    ctx = await makeStageCtx({ fit, width: 540, background: "#203040" });
    const input = await stageInput(ctx, talk, "video", {
      ref: `f${fit}`,
      start: 1,
      end: 3,
      pieces: [{ start: 1, end: 3 }],
    });
    const out = await cut.run(input, ctx);
    const got = await probeMedia(ctx.fileOf(out.cut.key));
    expect(got).toMatchObject({ width: 540, height: 960, videoCodec: "h264", audioCodec: "aac" });
    expect(Math.abs(got.duration - 2)).toBeLessThanOrEqual(0.15);
  });

  it("centres fit=crop on the salient region, not blindly on the middle", async () => {
    const file = path.join(CACHE, "salient-right.mp4");
    if (!existsSync(file)) {
      sh("ffmpeg", [
        "-v",
        "error",
        "-y",
        "-f",
        "lavfi",
        "-i",
        "color=c=0x606060:s=640x360:d=2:r=10",
        "-f",
        "lavfi",
        "-i",
        "testsrc2=s=110x110:d=2:r=10",
        "-filter_complex",
        "[0][1]overlay=510:120",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-pix_fmt",
        "yuv420p",
        file + ".part.mp4",
      ]);
      renameSync(file + ".part.mp4", file);
    }
    const x = await attentionFocus(file, [{ start: 0, end: 2 }]);
    expect(x).toBeGreaterThan(0.75);
  });

  it("selects the clip by ref from the run's clips and fails clearly on an unknown one", async () => {
    ctx = await makeStageCtx({ width: 360 });
    const base = await stageInput(ctx, talk, "video", undefined as any);
    const clips = [
      { number: 1, ref: "aaaa", start: 0, end: 1.5, pieces: [{ start: 0, end: 1.5 }] },
      { number: 2, ref: "bbbb", start: 2, end: 3, pieces: [{ start: 2, end: 3 }] },
    ];
    const out = await cut.run({ ...base, clip: undefined, clips, clip_ref: "bbbb" }, ctx);
    expect(out.cut).toMatchObject({ ref: "bbbb", start: 2, end: 3 });
    await expect(cut.run({ ...base, clip: undefined, clips, clip_number: 7 }, ctx)).rejects.toMatchObject({
      code: "clip_not_found",
    });
  });

  it("turns the audio-only jfk.wav into a 9:16 video clip with its audio (~11 s)", async () => {
    ctx = await makeStageCtx({});
    const duration = seconds(JFK);
    const input = await stageInput(ctx, { video: JFK, words: [], duration }, "audio", {
      ref: "cjfk",
      number: 1,
      title: "Ask not what your country can do for you",
      start: 0,
      end: duration,
      pieces: [{ start: 0, end: duration }],
    });
    const out = await cut.run(input, ctx);
    const got = await probeMedia(ctx.fileOf(out.cut.key));
    expect(got).toMatchObject({ width: 1080, height: 1920, videoCodec: "h264", audioCodec: "aac" });
    expect(Math.abs(got.duration - duration)).toBeLessThanOrEqual(0.15);
    expect(duration).toBeGreaterThan(10.5);
  });
});
