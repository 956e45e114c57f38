// The editor's and the site's smaller defects of issue 36 ("Editor details"), in Debian's Chromium
// against a real `clipd start`: the trim handles stop at the shortest clip and answer Home, End
// and PageUp/PageDown; captions outside the trim are not listed; on a phone the timeline is just
// under the preview; a missing clip's editor has an h1 and a way back; a stopped episode says
// "Stopped"; a deep link keeps its query through the sign-in, and "Create an account" keeps `next`;
// signed out, `/` says what clipd is. Photographed into docs/screenshots/clip-editor-phone-*.png.
import { readFile } from "node:fs/promises";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useBrowser, useWebClipd, VIEWPORTS } from "../helpers/browser.js";
import { shot } from "../helpers/editor.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";
import {
  keyApi,
  operatorAccount,
  readyJfkEpisode,
  signInThroughPage,
  type OperatorAccount,
} from "../helpers/studio.js";

describe("the editor's and the site's details (issue 36)", () => {
  const browser = useBrowser();
  const clipd = useWebClipd({ config: { transcribe: { engine: "pocketsphinx" } } });
  let context: BrowserContext;
  let page: Page;
  let who: OperatorAccount;
  let episode: any;
  const api = keyApi(
    () => clipd().url,
    () => who.live,
  );
  const value = async (name: string) => Number(await page.getByRole("slider", { name }).getAttribute("aria-valuenow"));

  beforeAll(async () => {
    who = await operatorAccount(clipd(), "editor-details@example.com", "a long enough password");
    context = await browser().newContext({ viewport: VIEWPORTS.desktop });
    context.setDefaultTimeout(120_000); // a ceiling on the waits below, not a delay
    page = await context.newPage();
    await signInThroughPage(page, clipd().url, who);
    episode = await readyJfkEpisode(api, "Details");
  });
  afterAll(() => context?.close());

  it("keeps the handles apart, answers Home/End/PageUp/PageDown, and lists only the captions inside", async () => {
    await page.goto(`${clipd().url}/episodes/${episode.episode_id}/clips/1/edit`);
    await page.locator("canvas.ed-captions[data-clip-time]").waitFor();
    const captions = page.getByRole("list", { name: "Caption words" }).getByRole("listitem");
    const before = await captions.count();
    const [start0, end0] = [await value("Clip start"), await value("Clip end")];

    // End as far left as it may go: the clip is the shortest the server takes, not less.
    await page.getByRole("slider", { name: "Clip end" }).focus();
    await page.keyboard.press("Home");
    await expect.poll(() => value("Clip end")).toBeLessThan(end0);
    const shortest = (await value("Clip end")) - start0;
    expect(shortest).toBeGreaterThanOrEqual(1.99);
    expect(shortest).toBeLessThan(4);
    // Dragging the start past the end stops it at the same limit: the handles do not cross.
    const handle = page.getByRole("slider", { name: "Clip start" });
    const box = (await handle.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + 1200, box.y + box.height / 2, { steps: 8 });
    await page.mouse.up();
    expect((await value("Clip end")) - (await value("Clip start"))).toBeGreaterThanOrEqual(1.99);
    await expect.poll(() => page.getByText("Fix this to render").count()).toBe(0);
    // Only the captions heard in the short clip are listed.
    await expect.poll(() => captions.count()).toBeLessThan(before);
    await page.screenshot({ path: shot("clip-editor-shortest"), fullPage: true });

    // Home and End go as far as a handle may; PageDown steps the end a sentence back, PageUp forward.
    // Home takes the start back to the first word the timeline shows.
    const view = await page.evaluate(
      async (id) => (await fetch(`/web/api/v1/clips/${id}/editor`)).json(),
      episode.clips.find((c: any) => c.number === 1).clip_id,
    );
    const earliest = Math.min(...view.words.map((w: any) => w.start));
    await page.getByRole("slider", { name: "Clip start" }).focus();
    await page.keyboard.press("Home");
    await expect.poll(async () => Math.abs((await value("Clip start")) - earliest)).toBeLessThan(0.01);
    await page.getByRole("slider", { name: "Clip end" }).focus();
    await page.keyboard.press("End");
    // End takes it to the last word the timeline shows.
    const latest = Math.max(...view.words.map((w: any) => w.end));
    await expect.poll(async () => Math.abs((await value("Clip end")) - latest)).toBeLessThan(0.01);
    const far = await value("Clip end");
    await page.keyboard.press("PageDown");
    await expect.poll(() => value("Clip end")).toBeLessThan(far);
    await page.keyboard.press("PageUp");
    await expect.poll(() => value("Clip end")).toBe(far);
  });

  it("puts the timeline just under the preview on a phone", async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    await page.goto(`${clipd().url}/episodes/${episode.episode_id}/clips/1/edit`);
    await page.locator("canvas.ed-captions[data-clip-time]").waitFor();
    const frame = (await page.locator(".ed-frame").boundingBox())!;
    const strip = (await page.locator(".ed-strip").boundingBox())!;
    expect(strip.y).toBeGreaterThan(frame.y + frame.height);
    // The whole preview and the timeline fit in one phone screen.
    expect(strip.y + strip.height - frame.y).toBeLessThan(VIEWPORTS.phone.height);
    await page.evaluate(() => document.querySelector(".ed-frame")!.scrollIntoView({ block: "start" }));
    await page.screenshot({ path: shot("clip-editor-phone-timeline") });
    await page.setViewportSize(VIEWPORTS.desktop);
  });

  it("gives a missing clip's editor a heading and a way back, and badges a stopped episode", async () => {
    await page.goto(`${clipd().url}/episodes/${episode.episode_id}/clips/99/edit`);
    await page.getByRole("heading", { level: 1, name: "This clip cannot be edited" }).waitFor();
    await page.getByRole("link", { name: "Back to the episode" }).click();
    await page.waitForURL(new RegExp(`/episodes/${episode.episode_id}$`));

    const made = await api("POST", "/episodes", { name: "Stopped one", file_name: "jfk.wav" });
    await fetch(made.upload.url, {
      method: "PUT",
      headers: made.upload.headers,
      body: await readFile(TEST_MEDIA.jfkWav),
    });
    await api("POST", `/episodes/${made.episode_id}/uploaded`, {});
    await api("POST", `/episodes/${made.episode_id}/cancel`);
    const stopped = await waitFor(
      async () => {
        const ep = await api("GET", `/episodes/${made.episode_id}`);
        if (ep.status === "ready") throw new Error("the episode was ready before it could be stopped");
        return ep.status === "failed" ? ep : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: "the stopped episode settled" },
    );
    expect(stopped.failure?.code).toBe("cancelled");
    await page.goto(`${clipd().url}/episodes/${made.episode_id}`);
    await page
      .locator(".badge")
      .filter({ hasText: /^Stopped$/ })
      .waitFor();
    expect(
      await page
        .locator(".badge")
        .filter({ hasText: /^Failed$/ })
        .count(),
    ).toBe(0);
  });

  it("keeps a deep link's query and `next` through the sign-in, and says what clipd is at /", async () => {
    const out = await browser().newContext({ viewport: VIEWPORTS.desktop });
    try {
      const p = await out.newPage();
      await p.goto(`${clipd().url}/episodes/${episode.episode_id}?tab=clips`);
      await p.waitForURL(/\/signin\?next=/);
      const next = new URL(p.url()).searchParams.get("next");
      expect(next).toBe(`/episodes/${episode.episode_id}?tab=clips`);
      const signup = await p.getByRole("link", { name: "Create an account" }).getAttribute("href");
      expect(new URL(signup!, clipd().url).searchParams.get("next")).toBe(next);

      await p.goto(`${clipd().url}/`);
      await p.getByRole("heading", { level: 1, name: /clipd/ }).waitFor();
      expect(await p.locator("main").innerText()).toMatch(/clips/i);
      await p.getByLabel("Email", { exact: true }).waitFor();
      expect(new URL(p.url()).pathname).toBe("/");
      await p.screenshot({ path: shot("welcome-desktop") });
    } finally {
      await out.close();
    }
  });
});
