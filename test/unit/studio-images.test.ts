// The studio's drawing with real ffmpeg, libass and sharp (daemon/studio/): images are drawn once
// per key however many ask at once, and at most two at a time; the waveform follows the loudness;
// a style preview carries its captions on the frame; the audio card wraps its title.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineLocalStorage, type LocalStorage } from "../../daemon/storage/storage.js";
import { loadStyles } from "../../daemon/render/styles.js";
import { DrawOnce } from "../../daemon/studio/cache.js";
import { card, wrapWords } from "../../daemon/studio/frames.js";
import { FRAME, neutralFrame, renderPreview } from "../../daemon/studio/preview.js";
import { drawWaveform, loudnessLevels } from "../../daemon/studio/waveform.js";

const run = promisify(execFile);

describe("studio images", () => {
  let dir: string;
  let storage: LocalStorage;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "clipd-studio-"));
    storage = defineLocalStorage(path.join(dir, "storage"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("draws an image once however many ask at once, keeps it, and runs at most two drawings together", async () => {
    const cache = new DrawOnce(storage, 2);
    let running = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const draw = (n: number) => async () => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
      return Buffer.from(`image ${n}`);
    };
    // Three asks for "a" and one each for "b" and "c": three drawings, two at a time.
    const asks = [
      cache.get("img/a.png", "image/png", draw(1)),
      cache.get("img/a.png", "image/png", draw(2)),
      cache.get("img/b.png", "image/png", draw(3)),
      cache.get("img/c.png", "image/png", draw(4)),
      cache.get("img/a.png", "image/png", draw(5)),
    ];
    // Each drawing waits for its release. First the cap must be reached (two drawing at once, the
    // third waiting); then they are released as they come. Which of the three asks for "a" draws
    // it is the cache's business; all three must get the same bytes.
    const until = (ready: () => boolean) =>
      new Promise<void>((resolve) => {
        const tick = () => (ready() ? resolve() : setImmediate(tick));
        tick();
      });
    await until(() => running === 2);
    for (let i = 0; i < 3; i++) {
      await until(() => releases.length > 0);
      releases.shift()!();
    }
    const got = await Promise.all(asks);
    expect(most).toBe(2);
    const a = got[0]!.bytes.toString();
    expect(a).toMatch(/^image [125]$/);
    expect(got.map((g) => g.bytes.toString())).toEqual([a, a, "image 3", "image 4", a]);
    expect(got.filter((g) => g.drawn)).toHaveLength(3);
    expect([...cache.draws.values()]).toEqual([1, 1, 1]);
    expect(got[0]!.etag).toBe(got[1]!.etag);
    expect((await storage.read("img/a.png")).toString()).toBe(a);

    // Kept: a new process's store reads it back and draws nothing.
    const again = await new DrawOnce(storage).get("img/a.png", "image/png", async () => {
      throw new Error("drawn again");
    });
    expect(again).toMatchObject({ drawn: false, etag: got[0]!.etag });
  });

  it("a failed drawing keeps nothing, and the next ask draws again", async () => {
    const cache = new DrawOnce(storage);
    await expect(
      cache.get("img/bad.png", "image/png", async () => Promise.reject(new Error("ffmpeg broke"))),
    ).rejects.toThrow("ffmpeg broke");
    expect(await storage.exists("img/bad.png")).toBe(false);
    expect((await cache.get("img/bad.png", "image/png", async () => Buffer.from("ok"))).drawn).toBe(true);
  });

  it("measures loudness per stretch and draws loud stretches taller than silence", async () => {
    const file = path.join(dir, "quiet-loud.wav");
    // 2 s of silence, then 2 s of a tone.
    await run("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "anullsrc=r=16000:cl=mono:d=2",
      "-f",
      "lavfi",
      "-i",
      "sine=f=300:r=16000:d=2",
      "-filter_complex",
      "[0][1]concat=n=2:v=0:a=1",
      file,
    ]);
    const levels = await loudnessLevels(file, 4, 40, { workdir: dir });
    expect(levels).toHaveLength(40);
    expect(Math.max(...levels.slice(0, 18))).toBeLessThan(-80);
    expect(Math.min(...levels.slice(22))).toBeGreaterThan(-30);

    const png = await drawWaveform(levels, { width: 120, height: 60 });
    const img = sharp(png);
    expect(await img.metadata()).toMatchObject({ format: "png", width: 120, height: 60, hasAlpha: true });
    // Opaque pixels per column: the tone's columns (right half) are filled far taller.
    const { data } = await img.ensureAlpha().extractChannel(3).raw().toBuffer({ resolveWithObject: true });
    const column = (x: number) =>
      Array.from({ length: 60 }, (_, y) => data[y * 120 + x]!).filter((a) => a > 128).length;
    expect(column(90)).toBeGreaterThan(40);
    expect(column(9)).toBeLessThanOrEqual(3);
  });

  it("burns a style's captions on the frame with libass, at the preview's size", async () => {
    const style = loadStyles().styles.find((s) => s.id === "boxed")!;
    const base = await neutralFrame();
    expect(await sharp(base).metadata()).toMatchObject(FRAME);
    const png = await renderPreview({ base, style, words: ["We", "choose", "to", "go"], workdir: dir });
    expect(await sharp(png).metadata()).toMatchObject({ format: "png", width: 360, height: 640 });
    if (process.env.CLIPD_TEST_LOOK_DIR)
      await sharp(png).toFile(path.join(process.env.CLIPD_TEST_LOOK_DIR, "unit-boxed.png"));
    // The boxed style draws a light box low on the dark frame; the top stays the plain background.
    const band = async (top: number) =>
      (await sharp(await sharp(png).extract({ left: 0, top, width: 360, height: 160 }).toBuffer()).stats()).channels[0]!
        .max;
    expect(await band(400)).toBeGreaterThan(200);
    expect(await band(0)).toBeLessThan(90);
  });

  it("wraps a card's title into at most four lines, the last one elided", async () => {
    expect(wrapWords("ask not what your country can do for you", 16, 4)).toEqual([
      "ask not what",
      "your country can",
      "do for you",
    ]);
    const long = wrapWords("one two three four five six seven eight nine ten eleven twelve thirteen fourteen", 9, 4);
    expect(long).toHaveLength(4);
    expect(long[3]).toMatch(/…$/);
    expect(wrapWords("Supercalifragilistic", 8, 2)).toEqual(["Superca…"]);
    const png = await card({ width: 270, height: 480 }, "And so, my fellow Americans", "0:01 – 0:11");
    expect(await sharp(png).metadata()).toMatchObject({ format: "png", width: 270, height: 480 });
  });
});
