// "Find more about…" in Debian's Chromium against a real `clipd start` on loopback: jfk.wav (11 s,
// one clip, the whole recording) goes up through the API; a brief searched on the episode page is
// answered by that clip, already on the list, and the panel lists it as the answer ("clip 1,
// already listed") rather than saying no clips were found. The API's answer agrees: the clip
// carries the brief in `answers`.
import { readFile } from "node:fs/promises";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useBrowser, useWebClipd, VIEWPORTS } from "../helpers/browser.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { operatorAccount, signInThroughPage, type OperatorAccount } from "../helpers/studio.js";
import { waitFor } from "../helpers/wait.js";

describe("Find more about… in a browser", () => {
  const browser = useBrowser();
  const clipd = useWebClipd({ config: { transcribe: { engine: "pocketsphinx" } } });
  let context: BrowserContext;
  let page: Page;
  let who: OperatorAccount;
  const api = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${clipd().url}/api/v1${p}`, {
      method,
      headers: { authorization: `Bearer ${who.live}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    expect(res.status, `${method} ${p}`).toBeLessThan(300);
    return (await res.json()) as any;
  };

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
    const made = await api("POST", "/episodes", { name: "Country", file_name: "jfk.wav" });
    const put = await fetch(made.upload.url, {
      method: "PUT",
      headers: made.upload.headers,
      body: await readFile(TEST_MEDIA.jfkWav),
    });
    expect(put.status).toBe(200);
    await api("POST", `/episodes/${made.episode_id}/uploaded`, {});
    const ready = await waitFor(
      async () => {
        const ep = await api("GET", `/episodes/${made.episode_id}`);
        return ep.status === "ready" ? ep : undefined;
      },
      { timeoutMs: 300_000, intervalMs: 300, what: "episode ready" },
    );
    expect(ready.clips).toHaveLength(1);
    const listed = ready.clips[0];

    await page.goto(`${clipd().url}/episodes/${made.episode_id}`);
    const brief = "what you can do for your country";
    await page.getByLabel("Find more about…").fill(brief);
    await page.getByRole("button", { name: "Find more", exact: true }).click();
    const answer = page.locator(".find-more .found");
    await answer.getByText(`1 clip about “${brief}”:`).waitFor();
    await expect.poll(() => answer.getByRole("link").textContent()).toBe(listed.title);
    expect(await answer.textContent()).toContain(`clip ${listed.number}, already listed`);
    expect(await page.getByText(`No clips about “${brief}” were found.`).count()).toBe(0);

    const after = await api("GET", `/episodes/${made.episode_id}`);
    expect(after.clips).toHaveLength(1);
    expect(after.clips[0].clip_id).toBe(listed.clip_id);
    expect(after.clips[0].answers).toContain(brief);
  });
});
