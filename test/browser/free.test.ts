// The free transcription page in Debian's Chromium against a real `clipd start` on loopback, with
// no account: jfk.wav uploaded through the page is transcribed, plays from the kept recording (a
// line clicked plays from its time; axe finds nothing) and its TXT, SRT and VTT download
// (the VTT read by a real parser); refusals read in plain words with the server's numbers (an
// 11-minute file over the 10 without a key, then the day's one file used); a free key made on
// /free/key, kept in the browser, lets a link through.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebVTTParser } from "webvtt-parser";
import { repoRoot } from "../helpers/cli.js";
import { useBrowser, useWebClipd, VIEWPORTS } from "../helpers/browser.js";
import { serveFile, startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { makeToneMp3, TEST_MEDIA } from "../helpers/media.js";

const axeSource = (createRequire(import.meta.url)("axe-core") as { source: string }).source;

describe("the free transcription page in a browser", () => {
  const browser = useBrowser();
  const clipd = useWebClipd({ config: { transcribe: { engine: "pocketsphinx" } } });
  let media: TestHttpsServer;
  let context: BrowserContext;
  let page: Page;
  const url = (p: string) => clipd().url + p;
  const alert = () => page.locator('[role="alert"]:not(:empty)').first();
  async function shoot(name: string) {
    for (const [kind, size] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(size);
      await page.screenshot({
        path: path.join(repoRoot, "docs", "screenshots", `${name}-${kind}.png`),
        animations: "disabled",
        caret: "hide",
      });
    }
    await page.setViewportSize(VIEWPORTS.desktop);
  }
  async function transcribeLink(link: string) {
    await page.goto(url("/free"));
    await page.getByLabel("Link to the recording").fill(link);
    await page.getByRole("button", { name: "Transcribe" }).click();
  }
  async function awaitResult() {
    await page.waitForURL(/\/free\/[0-9a-f-]{36}\?token=[\w-]+$/);
    await page.getByRole("heading", { name: "Downloads" }).waitFor();
    // The recording is kept 7 days, so the result has its player and the text as timed lines.
    await page.getByRole("heading", { name: "Listen and read" }).waitFor();
    const lines = page.getByRole("list", { name: "Transcript lines" });
    await lines.getByRole("button").first().waitFor();
    expect((await lines.textContent())!.toLowerCase()).toContain("country");
  }
  /** axe's violations on the page as it is now, as "rule: target" lines (none expected). */
  async function axe(): Promise<string[]> {
    await page.evaluate(axeSource); // evaluated, not a script tag: the site's CSP allows no inline script
    return page.evaluate(async () => {
      // Untyped on purpose: axe-core is injected into the page untyped
      const r = await (window as any).axe.run(document, { resultTypes: ["violations"] });
      // Untyped on purpose: axe-core's result shape, read in the page
      return r.violations.map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(" ")).join(", ")}`);
    });
  }

  beforeAll(async () => {
    media = await startHttpsServer({
      "/jfk.wav": serveFile(TEST_MEDIA.jfkWav, "audio/wav"),
      "/long.mp3": serveFile(await makeToneMp3(660), "audio/mpeg"),
    });
    context = await browser().newContext({ viewport: VIEWPORTS.desktop, acceptDownloads: true });
    context.setDefaultTimeout(120_000); // a ceiling on the waits below, not a delay
    page = await context.newPage();
  });
  afterAll(async () => {
    await context?.close();
    await media?.close();
  });

  it("transcribes an uploaded recording without an account and offers TXT, SRT and VTT", async () => {
    await page.goto(url("/free"));
    await page.getByRole("heading", { level: 1, name: "Free transcription" }).waitFor();
    await page.getByText("Uploaded audio is deleted after 7 days, and the text after 30 days.").waitFor();
    await shoot("free");
    await page.getByRole("radio", { name: "A file" }).check();
    await page.getByLabel("Recording file").setInputFiles(TEST_MEDIA.jfkWav);
    await page.getByRole("button", { name: "Transcribe" }).click();
    await awaitResult();
    // The player plays the kept recording (a signed file link), and a line plays from its time.
    const audio = page.getByLabel("Recording");
    expect(await audio.evaluate((a) => a.tagName + (a as HTMLAudioElement).controls)).toBe("AUDIOtrue");
    expect(await audio.getAttribute("src")).toMatch(/\/api\/v1\/files\//);
    await expect.poll(() => audio.evaluate((a) => (a as HTMLAudioElement).readyState)).toBeGreaterThan(0);
    const buttons = page.getByRole("list", { name: "Transcript lines" }).getByRole("button");
    const last = buttons.last();
    const at = ((await last.textContent()) ?? "").match(/^(\d+):(\d\d)/)!;
    await last.click();
    await expect
      .poll(() => audio.evaluate((a) => (a as HTMLAudioElement).currentTime))
      .toBeGreaterThanOrEqual(Number(at[1]) * 60 + Number(at[2]));
    await expect.poll(() => last.getAttribute("aria-current")).toBe("true");
    expect(await axe()).toEqual([]);
    await shoot("free-result");
    const download = async (name: string) => {
      const [d] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name }).click()]);
      return readFile((await d.path())!, "utf8");
    };
    const vtt = new WebVTTParser().parse(await download("Download VTT"), "metadata");
    expect(vtt.errors).toEqual([]);
    expect(vtt.cues.length).toBeGreaterThan(0);
    expect(await download("Download SRT")).toMatch(/^1\r?\n\d\d:\d\d:\d\d,\d{3} --> /);
    expect((await download("Download TXT")).toLowerCase()).toContain("country");
  });

  it("says in plain words, with the numbers, why a link is refused", async () => {
    await transcribeLink(media.url("/long.mp3"));
    await expect
      .poll(() => alert().textContent())
      .toBe("This file is 11 minutes long; the limit without a key is 10 minutes. A free key allows longer files.");
    await transcribeLink(media.url("/jfk.wav"));
    await expect
      .poll(() => alert().textContent())
      .toMatch(
        new RegExp(
          "^Without a key, 1 file a day can be sent from one address, and this address has used it\\. " +
            "Try again in \\d+ (hours?|minutes?)( \\d+ minutes?)?, or create a free key for more\\.$",
        ),
      );
  });

  it("makes a free key shown once, keeps it in the browser, and a link goes through with it", async () => {
    await page.goto(url("/free/key"));
    await page.getByLabel("Email").fill("lin@example.com");
    await page.getByRole("button", { name: "Create free key" }).click();
    const box = page.getByRole("region", { name: "Your free key" });
    expect((await box.locator("code.secret-value").textContent())!.trim()).toMatch(/^svc_free_/);
    await box.getByRole("button", { name: "Copy" }).waitFor();
    await shoot("free-key");
    await page.getByRole("button", { name: "I have saved it" }).click();
    await transcribeLink(media.url("/jfk.wav"));
    await awaitResult();
  });
});
