// The new-episode page's checks of issue 36 (item 7), in Debian's Chromium against a real `clipd
// start`: the price is said from the chosen file's length (the site's security policy let the page
// read it only once media-src allowed the page's own blob: URLs), a file over the upload limit is
// refused in the browser before anything is made for it, and a refusal reaches the creator in
// plain words, not as the API's field form. Photographed into docs/screenshots/new-episode-*.png.
import { open, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useBrowser, useWebClipd, VIEWPORTS } from "../helpers/browser.js";
import { shot } from "../helpers/editor.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { operatorAccount, signInThroughPage, type OperatorAccount } from "../helpers/studio.js";

describe("the new-episode page's checks (issue 36)", () => {
  const browser = useBrowser();
  const clipd = useWebClipd();
  let context: BrowserContext;
  let page: Page;
  let who: OperatorAccount;
  let tmp: string;
  const posts: string[] = [];

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "new-episode-checks-"));
    who = await operatorAccount(clipd(), "new-episode@example.com", "a long enough password");
    context = await browser().newContext({ viewport: VIEWPORTS.desktop });
    context.setDefaultTimeout(60_000); // a ceiling on the waits below, not a delay
    page = await context.newPage();
    page.on("request", (r) => {
      if (r.method() === "POST" && new URL(r.url()).pathname === "/web/api/v1/episodes") posts.push(r.url());
    });
    await signInThroughPage(page, clipd().url, who);
  });
  afterAll(async () => {
    await context?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it("says the price from the file's length", async () => {
    const logs: string[] = [];
    page.on("console", (m) => logs.push(m.text()));
    await page.goto(`${clipd().url}/episodes/new`);
    await page.getByLabel("Video or audio file").setInputFiles(TEST_MEDIA.jfkWav);
    await page.getByText("Chosen: jfk.wav").waitFor();
    // jfk.wav is 11 seconds: one started minute, so the minimum (said after the plan's episodes).
    const line = page.locator(".price-line").filter({ hasText: /cost about \$0\.25/ });
    await line.waitFor({ timeout: 20_000 }).catch(async (e: unknown) => {
      const said = await page.locator(".price-line").allTextContents();
      throw new Error(`no price from the file's length: ${String(e)}\n${said.join("\n")}\n${logs.join("\n")}`);
    });
    expect(logs.filter((l) => /Content Security Policy/i.test(l))).toEqual([]);
    await page.locator("form").screenshot({ path: shot("new-episode-price") });
  });

  it("refuses a file over the upload limit in the browser, before anything is made", async () => {
    // A sparse 5 GiB file that starts like a WAV: only its first bytes are on disk.
    const big = path.join(tmp, "long-show.wav");
    const fh = await open(big, "w");
    const head = Buffer.alloc(44);
    head.write("RIFF", 0, "latin1");
    head.write("WAVE", 8, "latin1");
    await fh.write(head, 0, head.length, 0);
    await fh.truncate(5 * 2 ** 30);
    await fh.close();
    await page.goto(`${clipd().url}/episodes/new`);
    await page.getByLabel("Video or audio file").setInputFiles(big);
    const alert = page.getByRole("alert").filter({ hasText: "long-show.wav" });
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/is 5 GB; clipd takes files up to 4\.5 GB/);
    await page.getByRole("button", { name: "Create episode" }).click();
    await page.getByRole("alert").filter({ hasText: "choose a file to upload" }).waitFor();
    expect(posts).toEqual([]);
    await page.locator("form").screenshot({ path: shot("new-episode-too-big") });
  });

  it("says a refusal in a creator's words", async () => {
    await page.goto(`${clipd().url}/episodes/new`);
    await page.getByLabel("Link to the episode").fill("http://example.com/episode.mp3");
    await page.getByRole("button", { name: "Create episode" }).click();
    const alert = page.getByRole("alert").filter({ hasText: /link/i });
    await alert.waitFor();
    const text = (await alert.textContent()) ?? "";
    expect(posts.length).toBe(1);
    expect(text).not.toMatch(/body field|query field|must NOT|source_url/);
    expect(text).toMatch(/^The link /);
    await page.locator("form").screenshot({ path: shot("new-episode-refusal") });
  });
});
