import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useBrowser, useWebClipd, VIEWPORTS } from "../helpers/browser.js";
import {
  operatorAccount,
  keyApi,
  readyJfkEpisode,
  signInThroughPage,
  type OperatorAccount,
} from "../helpers/studio.js";

describe("Find more about… in a browser", () => {
  const browser = useBrowser();
  const clipd = useWebClipd({ config: { transcribe: { engine: "pocketsphinx" } } });
  let context: BrowserContext;
  let page: Page;
  let who: OperatorAccount;
  const api = keyApi(
    () => clipd().url,
    () => who.live,
  );

  beforeAll(async () => {
    who = await operatorAccount(clipd(), "find-more@example.com", "a long enough password");
    context = await browser().newContext({ viewport: VIEWPORTS.desktop });
    context.setDefaultTimeout(300_000); // a ceiling on the waits below, not a delay
    page = await context.newPage();
    await signInThroughPage(page, clipd().url, who);
  });
  afterAll(async () => {
    await context?.close();
  });

  it("lists a clip already on the list that answers the brief", async () => {
    const ready = await readyJfkEpisode(api, "Country");
    expect(ready.clips).toHaveLength(1);
    const listed = ready.clips[0];

    await page.goto(`${clipd().url}/episodes/${ready.episode_id}`);
    const brief = "what you can do for your country";
    await page.getByLabel("Find more about…").fill(brief);
    await page.getByRole("button", { name: "Find more", exact: true }).click();
    const answer = page.locator(".find-more .found");
    await answer.getByText(`1 clip about “${brief}”:`).waitFor();
    await expect.poll(() => answer.getByRole("link").textContent()).toBe(listed.title);
    expect(await answer.textContent()).toContain(`clip ${listed.number}, already listed`);
    expect(await page.getByText(`No clips about “${brief}” were found.`).count()).toBe(0);

    const after = await api("GET", `/episodes/${ready.episode_id}`);
    expect(after.clips).toHaveLength(1);
    expect(after.clips[0].clip_id).toBe(listed.clip_id);
    expect(after.clips[0].answers).toContain(brief);
  });
});
