// The editor's preview frames what the render will (issue 37), in Debian's Chromium against a real
// `clipd start`: a face moving slowly across a 16:9 picture (test/fixtures/reframe.ts) under jfk's
// speech, its first clip opened in the editor before it was ever rendered (the camera planned with
// the episode). At three places the crop the page draws (the <video>'s object-fit and -position, read
// from the page) is held against the render's: each rendered frame is found in the source frame of the
// same moment by sliding it across, and the two windows' left edges must agree within 2 % of the width.
// A wide two-shot is previewed as the render's split screen: the two windows the page draws on its
// canvas (data-windows) against the render's two halves, each found on the source the same way.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { BrowserContext, Page } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compose, type Shot } from "../fixtures/reframe.js";
import { useBrowser, useWebClipd, VIEWPORTS } from "../helpers/browser.js";
import { until } from "../helpers/editor.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { fetchBytes, keyApi, operatorAccount, readyJfkEpisode, signInThroughPage } from "../helpers/studio.js";
import type { OperatorAccount } from "../helpers/studio.js";

const run = promisify(execFile);
const H = 180;

/** One frame of `file` at `t` seconds through the filter `vf`, grey. */
async function grey(file: string, t: number, vf: string) {
  const args = ["-v", "error", "-ss", t.toFixed(3), "-i", file, "-frames:v", "1", "-vf", vf];
  const { stdout } = await run("ffmpeg", [...args, "-f", "image2pipe", "-c:v", "png", "-"], {
    encoding: "buffer",
    maxBuffer: 1 << 24,
  });
  const { data, info } = await sharp(stdout).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}
type Grey = Awaited<ReturnType<typeof grey>>;

/**
 * Where `out` sits in `src` (fractions of src's width and height): the place of least difference,
 * over `out`'s upper 60 % (the captions are burnt into the lower part of the render).
 */
function locate(src: Grey, out: Grey, ys: number[] = [0]): { x: number; y: number } {
  const rows = Math.floor(out.height * 0.6);
  let best = { x: 0, y: 0, d: Number.POSITIVE_INFINITY };
  for (const oy of ys)
    for (let x = 0; x + out.width <= src.width; x++) {
      let d = 0;
      for (let y = 0; y < rows; y += 2)
        for (let i = 0; i < out.width; i += 2)
          d += Math.abs(src.data[(oy + y) * src.width + x + i]! - out.data[y * out.width + i]!);
      if (d < best.d) best = { x, y: oy, d };
    }
  return { x: best.x / src.width, y: best.y / src.height };
}

const range = (n: number) => Array.from({ length: Math.max(1, n + 1) }, (_, i) => i);

/** The window the preview draws now: the left edge of the source picture it shows, in fractions of its width. */
const previewLeft = (page: Page) =>
  page.locator(".ed-frame video").evaluate((v: HTMLVideoElement) => {
    const scale = Math.max(v.clientWidth / v.videoWidth, v.clientHeight / v.videoHeight);
    const free = v.clientWidth - v.videoWidth * scale;
    const px = Number.parseFloat(getComputedStyle(v).objectPosition.split(" ")[0]!) / 100;
    return (-free * px) / (v.videoWidth * scale);
  });

describe("the editor's preview frames what the render will (issue 37)", () => {
  const browser = useBrowser();
  const clipd = useWebClipd({ config: { transcribe: { engine: "pocketsphinx" } } });
  let context: BrowserContext;
  let page: Page;
  let who: OperatorAccount;
  let tmp: string;
  const api = keyApi(
    () => clipd().url,
    () => who.live,
  );

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "reframe-preview-"));
    who = await operatorAccount(clipd(), "reframe-preview@example.com", "a long enough password");
    context = await browser().newContext({ viewport: VIEWPORTS.desktop });
    context.setDefaultTimeout(120_000); // a ceiling on the waits below, not a delay
    page = await context.newPage();
    await signInThroughPage(page, clipd().url, who);
  });
  afterAll(async () => {
    await context?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  /** A composed picture (test/fixtures/reframe.ts) under jfk's speech, made an episode; its id. */
  async function episodeOf(name: string, shots: Shot[]): Promise<string> {
    const fx = await compose(tmp, name, { seconds: 12, shots, turns: [] });
    const video = path.join(tmp, `${name}-jfk.mp4`);
    const map = ["-map", "0:v", "-map", "1:a", "-c:v", "copy", "-c:a", "aac", "-shortest", video];
    await run("ffmpeg", ["-v", "error", "-y", "-i", fx.file, "-i", TEST_MEDIA.jfkWav, ...map]);
    sources.set(name, video);
    return (await readyJfkEpisode(api, name, video)).episode_id;
  }
  const sources = new Map<string, string>();

  /** The editor of the episode's first clip, open; where the clip starts on the source. */
  async function openEditor(episode: string): Promise<number> {
    await page.goto(`${clipd().url}/episodes/${episode}/clips/1/edit`);
    await page.locator("canvas.ed-captions[data-clip-time]").waitFor();
    // The preview moves to the clip's start once the video's metadata is in.
    await page.waitForFunction(() => {
      const v = document.querySelector<HTMLVideoElement>(".ed-frame video");
      return !!v && v.readyState >= 2 && !v.seeking;
    });
    return page.locator(".ed-frame video").evaluate((v: HTMLVideoElement) => v.currentTime);
  }

  /**
   * The player moved to source second `s`, once `clock` (a canvas's data-clip-time) says the frame for
   * that place is drawn (the first piece runs past 6 s: jfk's first sentence) and two more frames
   * are painted; the clip time.
   */
  async function seek(s: number, start: number, clock: string): Promise<number> {
    await page.locator(".ed-frame video").evaluate((v: HTMLVideoElement, at) => (v.currentTime = at), s);
    const t = await page.waitForFunction(
      ([at, from, sel]) => {
        const v = document.querySelector<HTMLVideoElement>(".ed-frame video")!;
        const c = document.querySelector<HTMLCanvasElement>(sel as string)?.dataset.clipTime;
        return !v.seeking && c !== undefined && Math.abs(Number(c) - (at! - from!)) < 0.05 && c;
      },
      [s, start, clock] as const,
    );
    for (let i = 0; i < 2; i++) await page.waitForFunction(() => new Promise((r) => requestAnimationFrame(() => r(1))));
    return Number(await t.jsonValue());
  }

  /** The episode's first clip rendered (9:16, 1080×1920); the file. */
  async function rendered(episode: string, name: string): Promise<string> {
    const exported = await api("POST", `/episodes/${episode}/clips`, { clips: [1], style: "clean" });
    const done = await until("the render", async () => {
      const j = await api("GET", `/jobs/${exported.jobs[0].job_id}`);
      if (j.status === "failed") throw new Error(`the render failed: ${JSON.stringify(j.error)}`);
      return j.status === "completed" ? j : undefined;
    });
    const file = path.join(tmp, `${name}-render.mp4`);
    await writeFile(file, await fetchBytes(done.download_url));
    return file;
  }

  it("agrees with the render on the crop at three moments of a clip never rendered", async () => {
    const ep = await episodeOf("walk", [{ who: "a", from: 0, to: 12, x: "0.25+0.5*t/12", y: 0.5, size: 400 }]);
    const start = await openEditor(ep);
    const seen: Array<{ s: number; t: number; left: number }> = [];
    for (const s of [start + 0.5, start + 3, start + 6]) {
      const t = await seek(s, start, "canvas.ed-captions");
      seen.push({ s, t, left: await previewLeft(page) });
    }
    // The face walks: the camera moves with it, so the three windows are not one.
    expect(Math.max(...seen.map((x) => x.left)) - Math.min(...seen.map((x) => x.left))).toBeGreaterThan(0.03);
    const render = await rendered(ep, "walk");
    for (const x of seen) {
      const src = await grey(sources.get("walk")!, x.s, `scale=-2:${H}`);
      const { x: left } = locate(src, await grey(render, x.t, `scale=-2:${H}`));
      expect(Math.abs(left - x.left), `at ${x.t} s: preview ${x.left}, render ${left}`).toBeLessThanOrEqual(0.02);
    }
  }, 600_000);

  it("previews a wide two-shot as the render's split screen, a face in each half", async () => {
    const ep = await episodeOf("pair", [
      { who: "a", from: 0, to: 12, x: "0.27", y: 0.5, size: 360 },
      { who: "b", from: 0, to: 12, x: "0.73", y: 0.5, size: 360 },
    ]);
    const start = await openEditor(ep);
    const split = page.getByRole("img", { name: "Split screen: one window per person" });
    await split.waitFor();
    type Win = { x: number; y: number; w: number; h: number };
    const seen: Array<{ s: number; t: number; wins: Win[] }> = [];
    for (const s of [start + 0.5, start + 3, start + 6]) {
      const t = await seek(s, start, "canvas.ed-split");
      seen.push({ s, t, wins: JSON.parse((await split.getAttribute("data-windows"))!) });
    }
    await page.locator(".ed-frame").screenshot({ path: path.join(tmp, "split-preview.png") });
    // One window on each person: the first on the left face, the second on the right one.
    for (const x of seen) {
      expect(x.wins[0]!.x + x.wins[0]!.w / 2).toBeLessThan(0.5);
      expect(x.wins[1]!.x + x.wins[1]!.w / 2).toBeGreaterThan(0.5);
    }
    const render = await rendered(ep, "pair");
    for (const x of seen) {
      const src = await grey(sources.get("pair")!, x.s, `scale=-2:${H}`);
      for (const [i, win] of x.wins.entries()) {
        // The render's half, scaled to the window's size on the source, then found on the source.
        const size = `${Math.round(win.w * src.width)}:${Math.round(win.h * src.height)}`;
        const half = await grey(render, x.t, `crop=iw:ih/2:0:${i ? "ih/2" : "0"},scale=${size}`);
        const at = locate(src, half, range(src.height - half.height));
        expect(Math.abs(at.x - win.x), `half ${i} at ${x.t} s: preview x ${win.x}, render ${at.x}`).toBeLessThanOrEqual(
          0.02,
        );
        expect(Math.abs(at.y - win.y), `half ${i} at ${x.t} s: preview y ${win.y}, render ${at.y}`).toBeLessThanOrEqual(
          0.02,
        );
      }
    }
  }, 600_000);
});
