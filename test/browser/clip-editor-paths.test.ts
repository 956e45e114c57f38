// The clip editor's broken paths of issue 36 (item 2), in Debian's Chromium against a real `clipd
// start`: jfk.wav (an audio episode) rendered once, then edited. Choosing a brand kit with its own
// font, or the "Serif story" style, must keep the preview's captions; Download must save the file;
// a caption emptied shows the problem in plain words and Render waits for it; a render the server
// refuses is said beside Render while the editor and its unsaved edits stay; and the preview of an
// audio clip shows the still the render draws (cover tile, show name, title, waveform). Each state
// is photographed into docs/screenshots/clip-editor-*.png.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useBrowser, useWebClipd, VIEWPORTS } from "../helpers/browser.js";
import { brandKit, brightShare, redrawnAfter, renderedJfkClip, shot } from "../helpers/editor.js";
import { keyApi, operatorAccount, signInThroughPage, type OperatorAccount } from "../helpers/studio.js";

describe("the clip editor's paths (issue 36)", () => {
  const browser = useBrowser();
  const clipd = useWebClipd({ config: { transcribe: { engine: "pocketsphinx" } } });
  let context: BrowserContext;
  let page: Page;
  let who: OperatorAccount;
  let tmp: string;
  let made: { episode: any; clipId: string };
  let kitId: string;
  const api = keyApi(
    () => clipd().url,
    () => who.live,
  );

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "clip-editor-paths-"));
    who = await operatorAccount(clipd(), "editor-paths@example.com", "a long enough password");
    context = await browser().newContext({ viewport: VIEWPORTS.desktop, acceptDownloads: true });
    context.setDefaultTimeout(120_000); // a ceiling on the waits below, not a delay
    page = await context.newPage();
    await signInThroughPage(page, clipd().url, who);
    made = await renderedJfkClip(api, "Editor paths");
    kitId = await brandKit(clipd().url, who.live, "Morning kit");
  });
  afterAll(async () => {
    await context?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it("keeps the captions through a kit and a style, downloads, and keeps edits through a refusal", async () => {
    await page.goto(`${clipd().url}/episodes/${made.episode.episode_id}/clips/1/edit`);
    await page.locator("canvas.ed-captions[data-clip-time]").waitFor();

    // An audio clip: the preview shows the still the render draws under the captions.
    const still = page.locator('svg[data-layer="still"]');
    await still.waitFor();
    const title = (await page.getByRole("heading", { level: 1 }).textContent())!.replace(/^Edit “|”$/g, "");
    const stillText = (await still.locator("text").allTextContents()).join(" ");
    expect(stillText).toContain(title.split(" ")[0]);
    expect(await still.locator(".ed-wave-bars rect").count()).toBe(40);
    await page.locator(".ed-frame").screenshot({ path: shot("clip-editor-audio-still") });

    // The kit has its own font: a new renderer on a new canvas, and the captions drawn again.
    await redrawnAfter(page, () => page.getByLabel("Brand kit").selectOption({ label: "Morning kit" }));
    await page.locator('svg[data-layer="brand"] image.ed-logo').waitFor();
    expect(await still.locator("text").allTextContents()).toContain("MORNING SHOW");
    // "Serif story" draws with another font again.
    await redrawnAfter(page, () =>
      page.getByRole("combobox", { name: "Caption style" }).selectOption({ label: "Serif story" }),
    );
    const framePng = await page.locator(".ed-frame").screenshot({ path: shot("clip-editor-kit-serif") });
    // The captions are on the lower part of the frame, in white: they were drawn.
    expect(await brightShare(framePng, [0.7, 0.95])).toBeGreaterThan(0.003);

    // Download saves the rendered file, as the episode page's Download does.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download" }).click(),
    ]);
    const saved = path.join(tmp, "download.mp4");
    await download.saveAs(saved);
    expect((await readFile(saved)).subarray(4, 8).toString("latin1")).toBe("ftyp");
    expect(download.suggestedFilename()).toMatch(/\.mp4$/);

    // A caption emptied: the preview says so in plain words, and Render waits until it is fixed.
    const render = page.getByRole("button", { name: "Render" });
    const boxes = page.getByRole("textbox", { name: /of caption 1$/ });
    const words = await boxes.evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    for (let i = 0; i < words.length; i++) await boxes.nth(i).fill("");
    const problem = page.getByRole("alert").filter({ hasText: "cannot be empty" });
    await problem.waitFor();
    expect(await problem.textContent()).not.toMatch(/body field|must NOT/);
    await expect.poll(() => render.isDisabled()).toBe(true);
    await page.screenshot({ path: shot("clip-editor-preview-problem"), fullPage: true });
    await boxes.nth(0).fill("Zebra");
    await problem.waitFor({ state: "detached" });
    await expect.poll(() => render.isEnabled()).toBe(true);

    // The kit is deleted elsewhere: the server refuses the render. The refusal is said beside
    // Render; the editor, the unsaved word and the chosen style stay.
    const gone = await fetch(`${clipd().url}/api/v1/brand-kits/${kitId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${who.live}` },
    });
    expect(gone.status).toBeLessThan(300);
    await render.click();
    const refusal = page.getByRole("alert").filter({ hasText: "Not rendered" });
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/brand kit/i);
    expect(await refusal.textContent()).not.toMatch(/body field/);
    await page.getByRole("heading", { level: 1, name: /^Edit/ }).waitFor();
    expect(await boxes.nth(0).inputValue()).toBe("Zebra");
    expect(await page.getByRole("combobox", { name: "Caption style" }).inputValue()).toBe("serif-story");
    await page.screenshot({ path: shot("clip-editor-refused"), fullPage: true });
  });
});
