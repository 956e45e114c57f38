// The clip editor (issue 31) in Debian's Chromium against a real `clipd start` on loopback: jfk.wav's
// first clip is rendered once, then opened in the editor; the end handle is dragged to a word edge, a
// word retyped, the shape and style changed, and the live preview (JASSUB drawing the server's ASS)
// follows without a job. One Render makes one job; its frame at a chosen time has the preview's
// caption in the same place, and its length is the trimmed length. axe finds nothing; the editor is
// photographed into docs/screenshots/clip-editor-*.png.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { BrowserContext, Page } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useBrowser, useWebClipd, VIEWPORTS } from "../helpers/browser.js";
import {
  fetchBytes,
  operatorAccount,
  probeVideo,
  shoot,
  keyApi,
  readyJfkEpisode,
  signInThroughPage,
  type OperatorAccount,
} from "../helpers/studio.js";
import { waitFor } from "../helpers/wait.js";

const exec = promisify(execFile);
const axeSource = (createRequire(import.meta.url)("axe-core") as { source: string }).source;

/** A frame's bright pixels (the white caption text) as a 0/1 mask, at `w`×`h`. */
async function brightMask(png: Buffer, w: number, h: number): Promise<Uint8Array> {
  // A border of 8 pixels is left out: the preview's rounded corners show the light page behind them.
  const raw = await sharp(png)
    .resize(w + 16, h + 16, { fit: "fill" })
    .extract({ left: 8, top: 8, width: w, height: h })
    .grayscale()
    .raw()
    .toBuffer();
  return Uint8Array.from(raw, (v) => (v > 200 ? 1 : 0));
}

/** The rows of `m` (width `w`) around the preview's caption: its first and last lit row, a few rows either side. */
function captionBand(m: Uint8Array, w: number): [number, number] {
  const rows = [...Array(m.length / w).keys()].filter((y) => m.subarray(y * w, (y + 1) * w).some((v) => v));
  return [Math.max(0, rows[0]! - 8), Math.min(m.length / w, rows.at(-1)! + 8)];
}

describe("the clip editor in a browser", () => {
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
  const until = <T>(what: string, fn: () => Promise<T | undefined>) =>
    waitFor(fn, { timeoutMs: 300_000, intervalMs: 300, what });

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "clip-editor-"));
    who = await operatorAccount(clipd(), "clip-editor@example.com", "a long enough password");
    context = await browser().newContext({ viewport: VIEWPORTS.desktop });
    context.setDefaultTimeout(300_000); // a ceiling on the waits below, not a delay
    page = await context.newPage();
    await signInThroughPage(page, clipd().url, who);
  });
  afterAll(async () => {
    await context?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it("trims, retypes and restyles on a live preview, then renders what the preview showed", async () => {
    const made = await readyJfkEpisode(api, "Editor");
    const exported = await api("POST", `/episodes/${made.episode_id}/clips`, { clips: [1], style: "clean" });
    const { job_id: firstJob, clip_id: clipId } = exported.jobs[0];
    await until("first render", async () => {
      const j = await api("GET", `/jobs/${firstJob}`);
      return j.status === "completed" ? j : undefined;
    });
    const jobCalls: string[] = [];
    page.on("request", (r) => {
      if (
        r.method() !== "GET" &&
        /\/(clips|episodes\/[^/]+\/clips)(\/[^/]+)?(\/captions)?$/.test(new URL(r.url()).pathname)
      )
        jobCalls.push(`${r.method()} ${new URL(r.url()).pathname}`);
    });

    // From the episode page's clip card to the editor.
    await page.goto(`${clipd().url}/episodes/${made.episode_id}`);
    await page.getByRole("link", { name: "Edit clip" }).first().click();
    await page.waitForURL(/\/clips\/1\/edit$/);
    const frame = page.locator(".ed-frame");
    const drawn = page.locator("canvas.ed-captions[data-clip-time]");
    const logs: string[] = [];
    page.on("console", (m) => logs.push(m.text()));
    page.on("pageerror", (e) => logs.push(String(e)));
    // The page's own messages say why, should the preview never draw.
    await drawn.waitFor({ state: "attached", timeout: 60_000 }).catch(async (e: unknown) => {
      const text = await page.locator("body").innerText();
      throw new Error(`the preview never drew: ${String(e)}\n${logs.join("\n")}\n${text}`);
    });
    expect(await frame.getAttribute("data-shape")).toBe("1080x1920");
    const view = await page.evaluate(async (id) => (await fetch(`/web/api/v1/clips/${id}/editor`)).json(), clipId);

    // Drag the end handle left: it lands on a word's end.
    const end = page.getByRole("slider", { name: "Clip end" });
    const was = Number(await end.getAttribute("aria-valuenow"));
    await end.scrollIntoViewIfNeeded();
    const box = (await end.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x - 60, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await expect.poll(async () => Number(await end.getAttribute("aria-valuenow"))).toBeLessThan(was);
    const trimmedEnd = Number(await end.getAttribute("aria-valuenow"));
    expect(view.words.some((w: any) => Math.abs(w.end - trimmedEnd) < 0.01)).toBe(true);

    // Retype the first word, then change the shape and the style: the preview follows, no job starts.
    const firstWord = page.getByRole("textbox", { name: "Word 1 of caption 1" });
    await firstWord.fill("Zebra");
    await page.getByRole("radio", { name: "1:1 square" }).check();
    const styleSelect = page.getByRole("combobox", { name: "Caption style" });
    const other = (await styleSelect.locator("option").allTextContents()).find((n) => n !== "Clean" && n !== "");
    await styleSelect.selectOption({ label: other! });
    await page.locator('.ed-frame[data-shape="1080x1080"]').waitFor();
    const clipStart = view.pieces[0].start;
    // A chosen time: half a second in (the first caption shows from the clip's first frame).
    const at = 0.5;
    await page.evaluate((t) => {
      document.querySelector("canvas.ed-captions")!.removeAttribute("data-clip-time");
      document.querySelector<HTMLVideoElement>(".ed-frame video")!.currentTime = t;
    }, clipStart + at);
    // Drawn at the player's place, which a seek may land a hair from.
    await page.waitForFunction(
      (t) =>
        Math.abs(Number(document.querySelector("canvas.ed-captions")?.getAttribute("data-clip-time") ?? -9) - t) < 0.05,
      at,
      { timeout: 60_000 },
    );
    const shownAss: string = await page.evaluate(
      async ({ id, body }) =>
        (
          await (
            await fetch(`/web/api/v1/clips/${id}/captions/preview`, {
              method: "POST",
              headers: {
                "content-type": "application/json",
                "x-csrf-token": (await (await fetch("/web/api/v1/session")).json()).csrf_token,
              },
              body: JSON.stringify(body),
            })
          ).json()
        ).ass,
      { id: clipId, body: { cues: [{ id: "1", text: "Zebra" }], look: { aspect_ratio: "1:1" } } },
    );
    expect(shownAss).toMatch(/PlayResX: 1080\nPlayResY: 1080/);
    expect(shownAss).toContain("Zebra");
    // The captions alone: an audio clip's preview also draws the still (title, waveform), which the
    // render's frame has too but with its bars at another height; the caption band is what is compared.
    const still = (shown: string) =>
      page.evaluate((v) => {
        const layer = document.querySelector<SVGElement>('.ed-frame svg[data-layer="still"]');
        if (layer) layer.style.visibility = v;
      }, shown);
    await still("hidden");
    const previewShot = await frame.screenshot();
    await still("");
    expect(jobCalls).toEqual([]);
    expect((await api("GET", `/jobs/${firstJob}`)).status).toBe("completed");

    await shoot(page, "clip-editor", { ready: () => drawn.waitFor() });
    await page.setViewportSize(VIEWPORTS.desktop);
    // Evaluated, not added as a script tag: the site's CSP rightly refuses inline scripts.
    await page.evaluate(axeSource);
    const axe = await page.evaluate(async () => {
      const r = await (window as any).axe.run(document, { resultTypes: ["violations"] });
      return r.violations.map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(" ")).join(", ")}`);
    });
    expect(axe).toEqual([]);

    // One Render: one job, its progress, then the rendered file beside the preview.
    await page.getByRole("button", { name: "Render" }).click();
    await page.getByText("Rendered.").waitFor();
    expect(jobCalls).toEqual([`PATCH /web/api/v1/clips/${clipId}/captions`]);
    const url = await page.getByLabel(/^Rendered clip/).getAttribute("src");
    const file = path.join(tmp, "rendered.mp4");
    await writeFile(file, await fetchBytes(url!));
    const facts = await probeVideo(file);
    expect([facts.width, facts.height]).toEqual([1080, 1080]);
    const saved = await page.evaluate(async (id) => (await fetch(`/web/api/v1/clips/${id}/editor`)).json(), clipId);
    const length = saved.pieces.reduce((a: number, p: any) => a + p.end - p.start, 0);
    expect(Math.abs(saved.pieces.at(-1).end - trimmedEnd)).toBeLessThan(0.01);
    expect(Math.abs(facts.seconds - length)).toBeLessThan(0.2);
    expect((await api("GET", `/clips/${clipId}/captions`)).captions[0].text.split(" ")[0]).toBe("Zebra");

    // The rendered frame at that time has the caption where the preview drew it.
    const png = path.join(tmp, "frame.png");
    await exec("ffmpeg", ["-v", "error", "-ss", String(at), "-i", file, "-frames:v", "1", "-y", png]);
    const [full, burned] = await Promise.all([
      brightMask(previewShot, 270, 270),
      brightMask(await readFile(png), 270, 270),
    ]);
    const [top, bottom] = captionBand(full, 270);
    const a = full.subarray(top * 270, bottom * 270);
    const b = burned.subarray(top * 270, bottom * 270);
    const lit = (m: Uint8Array) => m.reduce((n, v) => n + v, 0);
    expect(lit(a)).toBeGreaterThan(a.length * 0.02);
    expect(lit(b)).toBeGreaterThan(b.length * 0.02);
    // Text drawn by two libass builds, scaled and encoded differently: most lit pixels agree.
    const differ = a.reduce((n, v, i) => n + (v === b[i] ? 0 : 1), 0);
    expect(differ / Math.max(lit(a), lit(b))).toBeLessThan(0.6);
  });
});
