// The editor's preview frames what the render will (issue 37), in Debian's Chromium against a real
// `clipd start`: a face moving slowly across a 16:9 picture (test/fixtures/reframe.ts) under jfk's
// speech, its first clip opened in the editor before it was ever rendered (the camera planned with
// the episode). At three places the crop the page draws (the <video>'s object-fit and -position, read
// from the page) is held against the render's: each rendered frame is found in the source frame of the
// same moment by sliding it across, and the two windows' left edges must agree within 2 % of the width.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { BrowserContext, Page } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compose } from "../fixtures/reframe.js";
import { useBrowser, useWebClipd, VIEWPORTS } from "../helpers/browser.js";
import { until } from "../helpers/editor.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { fetchBytes, keyApi, operatorAccount, readyJfkEpisode, signInThroughPage } from "../helpers/studio.js";
import type { OperatorAccount } from "../helpers/studio.js";

const run = promisify(execFile);
const H = 180;

/** One frame of `file` at `t` seconds, grey, `H` pixels tall. */
async function grey(file: string, t: number) {
  const { stdout } = await run(
    "ffmpeg",
    [
      "-v",
      "error",
      "-ss",
      t.toFixed(3),
      "-i",
      file,
      "-frames:v",
      "1",
      "-vf",
      `scale=-2:${H}`,
      "-f",
      "image2pipe",
    ].concat(["-c:v", "png", "-"]),
    { encoding: "buffer", maxBuffer: 1 << 24 },
  );
  const { data, info } = await sharp(stdout).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width };
}

/** Where the rendered frame's picture sits in the source's, as the left edge in fractions of the width. */
async function renderedLeft(source: string, s: number, render: string, t: number): Promise<number> {
  const src = await grey(source, s);
  const out = await grey(render, t);
  // The upper 60 %: the captions are burnt into the lower part of the render.
  const rows = Math.floor(H * 0.6);
  let best = { x: 0, d: Number.POSITIVE_INFINITY };
  for (let x = 0; x + out.width <= src.width; x++) {
    let d = 0;
    for (let y = 0; y < rows; y += 2)
      for (let i = 0; i < out.width; i += 2)
        d += Math.abs(src.data[y * src.width + x + i]! - out.data[y * out.width + i]!);
    if (d < best.d) best = { x, d };
  }
  return best.x / src.width;
}

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

  it("agrees with the render on the crop at three moments of a clip never rendered", async () => {
    const shot = { who: "a" as const, from: 0, to: 12, x: "0.25+0.5*t/12", y: 0.5, size: 400 };
    const fx = await compose(tmp, "walk", { seconds: 12, shots: [shot], turns: [] });
    const video = path.join(tmp, "walk-jfk.mp4");
    await run(
      "ffmpeg",
      ["-v", "error", "-y", "-i", fx.file, "-i", TEST_MEDIA.jfkWav].concat([
        "-map",
        "0:v",
        "-map",
        "1:a",
        "-c:v",
        "copy",
        "-c:a",
        "aac",
        "-shortest",
        video,
      ]),
    );
    const ep = await readyJfkEpisode(api, "Walking speaker", video);
    await page.goto(`${clipd().url}/episodes/${ep.episode_id}/clips/1/edit`);
    await page.locator("canvas.ed-captions[data-clip-time]").waitFor();
    // Where the clip starts on the source: the preview moves there once the video's metadata is in.
    await page.waitForFunction(() => {
      const v = document.querySelector<HTMLVideoElement>(".ed-frame video");
      return !!v && v.readyState >= 2 && !v.seeking;
    });
    const start = await page.locator(".ed-frame video").evaluate((v: HTMLVideoElement) => v.currentTime);

    const seen: Array<{ s: number; t: number; left: number }> = [];
    for (const s of [start + 0.5, start + 3, start + 6]) {
      await page.locator(".ed-frame video").evaluate((v: HTMLVideoElement, at) => (v.currentTime = at), s);
      // The frame drawn for this place: the captions' clock moved there (the first piece runs past
      // 6 s: jfk's first sentence), then two frames painted so the window follows the clock.
      const t = Number(
        await (
          await page.waitForFunction(
            ([at, from]) => {
              const v = document.querySelector<HTMLVideoElement>(".ed-frame video")!;
              const c = document.querySelector<HTMLCanvasElement>("canvas.ed-captions")?.dataset.clipTime;
              return !v.seeking && c !== undefined && Math.abs(Number(c) - (at! - from!)) < 0.05 && c;
            },
            [s, start],
          )
        ).jsonValue(),
      );
      for (let i = 0; i < 2; i++)
        await page.waitForFunction(() => new Promise((r) => requestAnimationFrame(() => r(true))));
      seen.push({ s, t, left: await previewLeft(page) });
    }
    // The face walks: the camera moves with it, so the three windows are not one.
    expect(Math.max(...seen.map((x) => x.left)) - Math.min(...seen.map((x) => x.left))).toBeGreaterThan(0.03);

    const exported = await api("POST", `/episodes/${ep.episode_id}/clips`, { clips: [1], style: "clean" });
    const done = await until("the render", async () => {
      const j = await api("GET", `/jobs/${exported.jobs[0].job_id}`);
      if (j.status === "failed") throw new Error(`the render failed: ${JSON.stringify(j.error)}`);
      return j.status === "completed" ? j : undefined;
    });
    const render = path.join(tmp, "render.mp4");
    await writeFile(render, await fetchBytes(done.download_url));
    for (const x of seen) {
      const left = await renderedLeft(video, x.s, render, x.t);
      expect(Math.abs(left - x.left), `at ${x.t} s: preview ${x.left}, render ${left}`).toBeLessThanOrEqual(0.02);
    }
  }, 600_000);
});
