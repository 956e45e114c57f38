// An audio episode's embedded cover art becomes its clips' background.
import { execFileSync } from "node:child_process";
import path from "node:path";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import cut from "../../plugins/cut/index.js";
import probe from "../../plugins/probe/index.js";
import { makeAudioWithCover, TEST_MEDIA } from "../helpers/media.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

async function frameStats(file: string, dir: string) {
  const png = path.join(dir, `${path.basename(file)}.png`);
  execFileSync("ffmpeg", ["-v", "error", "-y", "-ss", "2", "-i", file, "-frames:v", "1", png]);
  // The upper band, away from the waveform in the middle.
  const { channels } = await sharp(png).extract({ left: 0, top: 100, width: 1080, height: 500 }).stats();
  return channels
    .slice(0, 3)
    .map((c) => c.stdev)
    .reduce((a, b) => a + b, 0);
}

describe("cut: audio cover art", () => {
  const ctxs: TestStageCtx[] = [];
  afterEach(async () => Promise.all(ctxs.splice(0).map((c) => c.cleanup())));

  async function cutAudio(file: string) {
    const ctx = await makeStageCtx({ width: 1080 });
    ctxs.push(ctx);
    const key = `in/${path.basename(file)}`;
    await ctx.storage.putFile(key, file);
    const source = { key, name: path.basename(file), bytes: 1 };
    const { media } = await probe.run({ source }, { ...ctx, options: {} });
    const clip = {
      number: 1,
      ref: "c0de",
      title: "Ask not",
      hook: "Ask not",
      start: 0,
      end: 4,
      pieces: [{ start: 0, end: 4 }],
      score: { value: 50, reasons: [] },
    };
    const out = await cut.run({ source, media, clip }, ctx);
    return { file: ctx.fileOf(out.cut.key), media, dir: ctx.workdir };
  }

  it("uses the picture embedded in an MP3 instead of the plain gradient", async () => {
    const withCover = await cutAudio(await makeAudioWithCover(TEST_MEDIA.jfkWav));
    expect(withCover.media.kind).toBe("audio");
    expect(withCover.media.streams.some((s: any) => s.cover_art)).toBe(true);
    const plain = await cutAudio(TEST_MEDIA.jfkWav);
    const a = await frameStats(withCover.file, withCover.dir);
    const b = await frameStats(plain.file, plain.dir);
    // testsrc2's colour bars make a far busier background than the generated gradient.
    expect(a).toBeGreaterThan(b * 1.4);
  });
});
