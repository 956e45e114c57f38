import type { BrowserContext, Page } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useBrowser, useWebClipd, VIEWPORTS } from "../helpers/browser.js";
import {
  operatorAccount,
  shoot,
  keyApi,
  readyJfkEpisode,
  signInThroughPage,
  type OperatorAccount,
} from "../helpers/studio.js";
import { waitFor } from "../helpers/wait.js";

describe("the caption editor in a browser", () => {
  const browser = useBrowser();
  const clipd = useWebClipd({ config: { transcribe: { engine: "pocketsphinx" } } });
  let context: BrowserContext;
  let page: Page;
  let who: OperatorAccount;
  const api = keyApi(
    () => clipd().url,
    () => who.live,
  );
  const until = <T>(what: string, fn: () => Promise<T | undefined>) =>
    waitFor(fn, { timeoutMs: 300_000, intervalMs: 300, what });

  beforeAll(async () => {
    who = await operatorAccount(clipd(), "editor@example.com", "a long enough password");
    context = await browser().newContext({ viewport: VIEWPORTS.desktop });
    context.setDefaultTimeout(300_000); // a ceiling on the waits below, not a delay
    page = await context.newPage();
    await signInThroughPage(page, clipd().url, who);
  });
  afterAll(async () => {
    await context?.close();
  });

  it("retypes a caption, shows the render's progress, then the new words", async () => {
    const made = await readyJfkEpisode(api, "Editing");
    const exported = await api("POST", `/episodes/${made.episode_id}/clips`, { clips: [1], style: "clean" });
    const { job_id: jobId, clip_id: clipId } = exported.jobs[0];
    const job = await until("first render", async () => {
      const j = await api("GET", `/jobs/${jobId}`);
      return j.status === "completed" || j.status === "failed" ? j : undefined;
    });
    expect(job.status).toBe("completed");
    const clip = (await api("GET", `/episodes/${made.episode_id}`)).clips.find((c: any) => c.clip_id === clipId);

    await page.goto(`${clipd().url}/episodes/${made.episode_id}`);
    // The workspace (issue 31) shows a made clip inside its own clip's tile.
    const article = page.getByRole("article", { name: clip.title, exact: true }).locator("article.made");
    // The player's poster is the rendered one (a signed file link), not the studio's source frame.
    expect(await article.locator("video").getAttribute("poster")).toMatch(/\/api\/v1\/files\//);
    // The studio's own poster of a rendered clip (its cards) is the render's poster, scaled down.
    const small = async (bytes: Buffer) => sharp(bytes).resize(27, 48, { fit: "fill" }).grayscale().raw().toBuffer();
    const studioPoster = Buffer.from(
      await page.evaluate(
        async (u) => Array.from(new Uint8Array(await (await fetch(u)).arrayBuffer())),
        `/web/api/v1/clips/${clipId}/poster.jpg`,
      ),
    );
    const rendered = Buffer.from(await (await fetch(job.poster_url)).arrayBuffer());
    const [x, y] = await Promise.all([small(studioPoster), small(rendered)]);
    expect(x.reduce((a, v, i) => a + Math.abs(v - y[i]!), 0) / x.length).toBeLessThan(4);
    await article.getByText("Edit captions").click();
    const boxes = article.getByRole("list", { name: "Captions to edit" }).getByRole("textbox");
    await boxes.first().waitFor();
    const was = await boxes.first().inputValue();
    const now = ["Zebra", ...was.split(" ").slice(1)].join(" ");
    await boxes.first().fill(now);
    await article.getByRole("button", { name: "One sentence later" }).click();
    await article.getByRole("button", { name: "Drop the last sentence" }).click(); // back to as it is
    await article.getByText("End (as it is)").waitFor();
    await shoot(page, "caption-editor", { before: () => article.getByText("Edit captions").scrollIntoViewIfNeeded() });
    await article.getByRole("button", { name: "Save and render" }).click();
    await article.getByText(`Rendering again: caption 1: ${was} → ${now}.`).waitFor();
    await article.getByRole("progressbar", { name: `Progress of ${clip.title}` }).waitFor();

    await until("the edit rendered", async () => {
      const c = (await api("GET", `/episodes/${made.episode_id}`)).clips.find((x: any) => x.clip_id === clipId);
      return c.export_status === "exported" ? c : undefined;
    });
    const captions = await api("GET", `/clips/${clipId}/captions`);
    expect(captions.captions[0].text).toBe(now);
    // Once rendered, the panel reads the clip again: the box holds the edited words.
    await page.reload();
    await article.getByText("Edit captions").click();
    await expect.poll(() => boxes.first().inputValue(), { timeout: 60_000 }).toBe(now);
  });
});
