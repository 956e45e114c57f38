// The clip editor's edits of issue 36 (item 6), in Debian's Chromium against a real `clipd start`:
// the brand kit's intro card and logo are previewed on the render's clock (the preview says the
// rendered file's length), "Clean" is previewed with the regular face the render uses, a whole
// misheard line is retyped and re-timed over the line's own span, edits are undone and redone, and
// leaving with unsaved edits asks first. Photographed into docs/screenshots/clip-editor-*.png.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useBrowser, useWebClipd, VIEWPORTS } from "../helpers/browser.js";
import { muxTalk, TEST_MEDIA } from "../helpers/media.js";
import { brandKit, redrawnAfter, renderedJfkClip, shot } from "../helpers/editor.js";
import {
  fetchBytes,
  keyApi,
  operatorAccount,
  probeVideo,
  readyJfkEpisode,
  signInThroughPage,
  type OperatorAccount,
} from "../helpers/studio.js";

describe("the clip editor's edits (issue 36)", () => {
  const browser = useBrowser();
  const clipd = useWebClipd({ config: { transcribe: { engine: "pocketsphinx" } } });
  let context: BrowserContext;
  let page: Page;
  let who: OperatorAccount;
  let tmp: string;
  let made: { episode: any; clipId: string };
  const api = keyApi(
    () => clipd().url,
    () => who.live,
  );
  const editorUrl = () => `${clipd().url}/episodes/${made.episode.episode_id}/clips/1/edit`;
  const frame = () => page.locator(".ed-frame");

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "clip-editor-edits-"));
    who = await operatorAccount(clipd(), "editor-edits@example.com", "a long enough password");
    context = await browser().newContext({ viewport: VIEWPORTS.desktop });
    context.setDefaultTimeout(300_000); // a ceiling on the waits below, not a delay
    page = await context.newPage();
    await signInThroughPage(page, clipd().url, who);
    made = await renderedJfkClip(api, "Editor edits");
    await brandKit(clipd().url, who.live, "Morning kit");
  });
  afterAll(async () => {
    await context?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it("previews Clean with the regular face the render draws it with", async () => {
    await page.goto(editorUrl());
    await page.locator("canvas.ed-captions[data-clip-time]").waitFor();
    const fonts = await page.evaluate(async (id) => {
      const token = (await (await fetch("/web/api/v1/session")).json()).csrf_token;
      const ask = async (style: string) =>
        (
          await (
            await fetch(`/web/api/v1/clips/${id}/captions/preview`, {
              method: "POST",
              headers: { "content-type": "application/json", "x-csrf-token": token },
              body: JSON.stringify({ look: { style } }),
            })
          ).json()
        ).fonts.map((f: { url: string }) => f.url.split("/").at(-1));
      return { clean: await ask("clean"), bold: await ask("bold-punch") };
    }, made.clipId);
    expect(fonts.clean).toEqual(["DejaVuSans.ttf"]);
    expect(fonts.bold).toEqual(["DejaVuSans-Bold.ttf"]);
  });

  it("undoes and redoes edits, and asks before leaving them", async () => {
    await page.goto(editorUrl());
    await page.locator("canvas.ed-captions[data-clip-time]").waitFor();
    const word = page.getByRole("textbox", { name: "Word 1 of caption 1" });
    const style = page.getByRole("combobox", { name: "Caption style" });
    const was = await word.inputValue();
    const wasStyle = await style.inputValue();
    await word.fill("");
    await word.pressSequentially("Zebra"); // one box typed in: one step
    await style.selectOption({ label: "Karaoke" });
    const undo = page.getByRole("button", { name: "Undo" });
    await undo.click();
    expect(await style.inputValue()).toBe(wasStyle);
    expect(await word.inputValue()).toBe("Zebra");
    await page.keyboard.press("Control+z");
    expect(await word.inputValue()).toBe(was);
    await expect.poll(() => undo.isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Redo" }).click();
    expect(await word.inputValue()).toBe("Zebra");
    await page.keyboard.press("Control+Shift+z");
    expect(await style.inputValue()).toBe("karaoke");

    // The site's own link asks; declined, the editor and its edits stay.
    const asked: Array<{ type: string; message: string }> = [];
    page.once("dialog", (d) => {
      asked.push({ type: d.type(), message: d.message() });
      void d.dismiss();
    });
    await page.getByRole("link", { name: "Back to the episode" }).click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]!.type).toBe("confirm");
    expect(asked[0]!.message).toMatch(/not rendered yet/);
    expect(page.url()).toBe(editorUrl());
    expect(await word.inputValue()).toBe("Zebra");
    // Closing the tab asks too (the browser's own question).
    const unloading = new Promise<string>((resolve) =>
      page.once("dialog", (d) => {
        resolve(d.type());
        void d.accept();
      }),
    );
    await page.close({ runBeforeUnload: true });
    expect(await unloading).toBe("beforeunload");
    page = await context.newPage();
  });

  it("previews the kit's intro card and logo on the render's clock, and retypes a whole line", async () => {
    await page.goto(editorUrl());
    await page.locator("canvas.ed-captions[data-clip-time]").waitFor();
    const view = await page.evaluate(async (id) => (await fetch(`/web/api/v1/clips/${id}/editor`)).json(), made.clipId);
    await redrawnAfter(page, () => page.getByLabel("Brand kit").selectOption({ label: "Morning kit" }));
    await page.locator('svg[data-layer="brand"] image.ed-logo').waitFor();
    const total = Number(await frame().getAttribute("data-total"));
    const length = view.pieces.reduce((a: number, p: any) => a + p.end - p.start, 0);
    expect(total).toBeCloseTo(length + 1.5, 1);

    // From the start the render shows the intro card; playing runs it for its seconds, then the clip.
    await page.getByRole("button", { name: "From the start" }).click();
    await page.getByRole("img", { name: /^Intro card: The Morning Show/ }).waitFor();
    await frame().screenshot({ path: shot("clip-editor-intro-card") });
    await page.getByRole("button", { name: "Play or pause" }).click();
    await page.locator('.ed-frame[data-phase="clip"]').waitFor();
    await page.getByRole("button", { name: "Play or pause" }).click();

    // A whole line retyped: one box, its words re-timed over the line's span by the server.
    const second = view.cues[1];
    await page.getByRole("button", { name: "Retype line 2" }).click();
    const said = page.waitForResponse(
      (r) => r.url().endsWith("/captions/preview") && r.request().postData()?.includes("quite different words"),
    );
    await page.getByRole("textbox", { name: "Caption 2 as one line" }).fill("some quite different words here");
    // The ASS breaks the line where it is too long (\N): read it as one line of words.
    expect((await (await said).json()).ass.replace(/\\N/g, " ")).toContain("some quite different words here");
    await frame().screenshot({ path: shot("clip-editor-kit-logo") });

    await page.getByRole("button", { name: "Render" }).click();
    await page.getByText("Rendered.").waitFor();
    const url = await page.getByLabel(/^Rendered clip/).getAttribute("src");
    const file = path.join(tmp, "rendered.mp4");
    await writeFile(file, await fetchBytes(url!));
    // The preview's clock is the render's: the intro card and the clip.
    expect(Math.abs((await probeVideo(file)).seconds - total)).toBeLessThan(0.25);
    // The new words, in order, start where the line started (times on the clip's own timeline).
    const caps: Array<{ text: string; start_seconds: number; end_seconds: number }> = (
      await api("GET", `/clips/${made.clipId}/captions`)
    ).captions;
    expect(caps.map((c) => c.text).join(" ")).toContain("some quite different words here");
    const first = caps.find((c) => /\bsome\b/.test(c.text))!;
    const clipStart = view.pieces[0].start;
    expect(first.start_seconds).toBeGreaterThanOrEqual(second.start - clipStart - 0.1);
    expect(first.start_seconds).toBeLessThan(second.end - clipStart);
    await page.screenshot({ path: shot("clip-editor-edits"), fullPage: true });
  });

  it("previews a whole picture on the blurred background as the blurred picture, not a flat colour", async () => {
    const video = muxTalk(TEST_MEDIA.jfkWav, path.join(tmp, "jfk-talk.mp4"), "testsrc2=s=640x360:r=25");
    const ep = await readyJfkEpisode(api, "Editor video", video);
    await page.goto(`${clipd().url}/episodes/${ep.episode_id}/clips/1/edit`);
    await page.locator("canvas.ed-captions[data-clip-time]").waitFor();
    await redrawnAfter(page, async () => {
      await page.getByLabel("Fit").selectOption({ label: "Whole picture" });
      await page.getByLabel("Background").selectOption({ label: "Blurred picture" });
    });
    const fill = page.locator("canvas.ed-blur");
    await fill.waitFor();
    // The fill is the picture itself, blurred: many colours, not one.
    const spread = await page.waitForFunction(() => {
      const c = document.querySelector<HTMLCanvasElement>("canvas.ed-blur");
      const d = c?.getContext("2d")?.getImageData(0, 0, c.width, c.height).data;
      if (!d) return null;
      const seen = new Set<number>();
      for (let i = 0; i < d.length; i += 16) seen.add((d[i]! >> 4) * 256 + (d[i + 1]! >> 4) * 16 + (d[i + 2]! >> 4));
      return seen.size > 20 ? seen.size : null;
    });
    expect(Number(await spread.jsonValue())).toBeGreaterThan(20);
    await frame().screenshot({ path: shot("clip-editor-blur") });
  });
});
