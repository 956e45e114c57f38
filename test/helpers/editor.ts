// Helpers of the clip editor's browser tests (issue 36): a rendered first clip of jfk.wav (an audio
// episode), a brand kit made through the API with an uploaded font and logo and an intro card, and
// the waits on the preview's own state (captions drawn, the render's clock).
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import sharp from "sharp";
import { repoRoot } from "./cli.js";
import { readyJfkEpisode, type KeyApi } from "./studio.js";
import { waitFor } from "./wait.js";

/** Where a test's picture of a state goes: docs/screenshots/<name>.png. */
export const shot = (name: string) => path.join(repoRoot, "docs", "screenshots", `${name}.png`);

export const KIT_FONT = path.join(repoRoot, "test", "fixtures", "fonts", "DejaVuSans-Bold.ttf");

/** Polls `fn` until it gives a value (a render is minutes on a loaded machine). */
export const until = <T>(what: string, fn: () => Promise<T | undefined>) =>
  waitFor(fn, { timeoutMs: 300_000, intervalMs: 300, what });

/** jfk.wav made an episode, its first clip rendered once; the episode and the clip's id. */
export async function renderedJfkClip(api: KeyApi, name: string): Promise<{ episode: any; clipId: string }> {
  const episode = await readyJfkEpisode(api, name);
  const exported = await api("POST", `/episodes/${episode.episode_id}/clips`, { clips: [1], style: "clean" });
  const { job_id: job, clip_id: clipId } = exported.jobs[0];
  await until("first render", async () => {
    const j = await api("GET", `/jobs/${job}`);
    if (j.status === "failed") throw new Error(`the first render failed: ${JSON.stringify(j.error)}`);
    return j.status === "completed" ? j : undefined;
  });
  return { episode, clipId };
}

/** A brand kit with colours, an intro card, a show name, an uploaded font and a logo (a red 60×30 PNG). */
export async function brandKit(base: string, key: string, name: string): Promise<string> {
  const headers = { authorization: `Bearer ${key}` };
  const res = await fetch(`${base}/api/v1/brand-kits`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({
      name,
      colours: { primary: "#FFFFFF", accent: "#22CC88", background: "#1E3A8A" },
      // Card first: the editor tests follow the intro card from the clip's first frame.
      intro: { text: "The Morning Show", seconds: 1.5, order: "card_first" },
      logo: { corner: "top-right", size: 0.2, opacity: 1 },
      show_name: "Morning Show",
    }),
  });
  if (res.status !== 201) throw new Error(`POST /brand-kits answered ${res.status}: ${await res.text()}`);
  const id: string = (await res.json()).brand_kit_id;
  const logo = await sharp({ create: { width: 60, height: 30, channels: 4, background: "#e11d48" } })
    .png()
    .toBuffer();
  for (const [what, body] of [
    ["font", await readFile(KIT_FONT)],
    ["logo", logo],
  ] as const) {
    const put = await fetch(`${base}/api/v1/brand-kits/${id}/${what}`, {
      method: "PUT",
      headers,
      body: new Uint8Array(body),
    });
    if (put.status !== 200) throw new Error(`PUT ${what} answered ${put.status}: ${await put.text()}`);
  }
  return id;
}

/**
 * Waits until the preview has drawn its captions after the change `act` makes: the drawn canvas's
 * mark is taken away first, so only a drawing after the change counts. Fails with the preview's
 * own words when it says the captions could not be drawn.
 */
export async function redrawnAfter(page: Page, act: () => Promise<unknown>): Promise<void> {
  await page.evaluate(() => document.querySelector("canvas.ed-captions")?.removeAttribute("data-clip-time"));
  await act();
  await page.waitForFunction(
    () =>
      !!document.querySelector("canvas.ed-captions[data-clip-time]") ||
      /could not be drawn/.test(document.querySelector(".ed-clock")?.textContent ?? ""),
    undefined,
    { timeout: 60_000 },
  );
  const clock = (await page.locator(".ed-clock").textContent()) ?? "";
  if (/could not be drawn/.test(clock)) throw new Error(`the preview lost its captions: ${clock}`);
}

/** The share of a PNG's pixels that are near white (the captions' text), within a horizontal band of it. */
export async function brightShare(png: Buffer, band: [number, number] = [0, 1]): Promise<number> {
  const { data, info } = await sharp(png).grayscale().raw().toBuffer({ resolveWithObject: true });
  const [from, to] = band.map((f) => Math.round(f * info.height));
  let lit = 0;
  for (let y = from!; y < to!; y++) for (let x = 0; x < info.width; x++) if (data[y * info.width + x]! > 225) lit++;
  return lit / Math.max(1, (to! - from!) * info.width);
}
