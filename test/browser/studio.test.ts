// The studio end to end, in Debian's Chromium against a real `clipd start` on loopback, reached
// through a proxy that can drop an upload's connection (test/helpers/drop-proxy.ts). An account the
// operator made (plan, credit, password) signs in; jfk.wav and a generated 2-minute two-voice video
// go up through the new-episode page, the video's upload cut off mid-chunk and resumed, and both
// reach their clips. A clip's Preview plays its piece from the source; two clips are cut in two
// styles; one is downloaded through the page (ffprobe: 1080x1920 H.264) and the other restyled
// into a new render. A webhook receiver hears episode.ready and clip.ready for them, and GET /me
// shows the plan's API allowance untouched. The pages are photographed into docs/screenshots/.
import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeEpisode } from "../fixtures/episodes.js";
import { useBrowser, useWebClipd, VIEWPORTS } from "../helpers/browser.js";
import { startDropProxy, type DropProxy } from "../helpers/drop-proxy.js";
import { TEST_MEDIA } from "../helpers/media.js";
import {
  fetchBytes,
  operatorAccount,
  probeVideo,
  rises,
  sha256,
  shoot,
  signInThroughPage,
  watchUploadBar,
  type OperatorAccount,
} from "../helpers/studio.js";
import { waitFor } from "../helpers/wait.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";

const MiB = 1024 * 1024;
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const episodeUrl = new RegExp(`/episodes/(${UUID})$`);

describe("the studio in a browser", () => {
  const browser = useBrowser();
  const clipd = useWebClipd({ config: { transcribe: { engine: "pocketsphinx" } } });
  let receiver: Receiver;
  let proxy: DropProxy;
  let context: BrowserContext;
  let page: Page;
  let who: OperatorAccount;
  let video: string;
  let scratch = "";
  const ids = { jfk: "", video: "" };
  const cuts: Array<{ clipId: string; title: string; style: string; jobId: string }> = [];
  const url = (p: string) => proxy.url + p;
  const h1 = (name: string | RegExp) => page.getByRole("heading", { level: 1, name });
  const api = async (p: string) => {
    const res = await fetch(`${clipd().url}/api/v1${p}`, { headers: { authorization: `Bearer ${who.live}` } });
    expect(res.status, p).toBe(200);
    return (await res.json()) as any;
  };
  /** A web-only call made by the page itself, with its session. */
  const inPage = (p: string) => page.evaluate(async (u) => (await fetch(u)).json(), `/web/api/v1${p}`);
  // The workspace (issue 31): each clip a tile, and a made clip inside its own clip's tile.
  const clipCards = () => page.getByRole("list", { name: "Found clips, best first" }).locator("article.clip-tile");
  const made = (title: string) => page.getByRole("article", { name: title, exact: true }).locator("article.made");

  beforeAll(async () => {
    receiver = await startReceiver();
    // The cached fixture under a plain name, as a person's file would be named.
    scratch = await mkdtemp(path.join(tmpdir(), "clipd-studio-"));
    video = path.join(scratch, "two-voices.mp4");
    await copyFile((await makeEpisode({ seconds: 120, video: true })).file, video);
    who = await operatorAccount(clipd(), "studio@example.com", "a long enough password");
    const hook = await fetch(`${clipd().url}/api/v1/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${who.live}`, "content-type": "application/json" },
      body: JSON.stringify({ url: receiver.path("/hooks"), events: ["episode.ready", "clip.ready"] }),
    });
    expect(hook.status).toBe(201);
    receiver.secret("/hooks", ((await hook.json()) as { secret: string }).secret);
    proxy = await startDropProxy({ host: "127.0.0.1", port: clipd().port });
    context = await browser().newContext({ viewport: VIEWPORTS.desktop, acceptDownloads: true });
    context.setDefaultTimeout(300_000); // a ceiling on the waits below, not a delay
    page = await context.newPage();
    await signInThroughPage(page, proxy.url, who);
  });
  afterAll(async () => {
    await context?.close();
    await proxy?.close();
    await receiver?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it("uploads jfk.wav through the new-episode page", async () => {
    await page.goto(url("/episodes/new"));
    await h1("New episode").waitFor();
    await page.getByRole("region", { name: "Your clip defaults" }).getByText("Bold punch").waitFor();
    await shoot(page, "new-episode");
    const bar = await watchUploadBar(page);
    await page.getByLabel("Video or audio file").setInputFiles(TEST_MEDIA.jfkWav);
    await page.getByText("Chosen: jfk.wav").waitFor();
    await page.getByRole("button", { name: "Create episode" }).click();
    await page.waitForURL(episodeUrl);
    ids.jfk = episodeUrl.exec(page.url())![1]!;
    // One piece (a whole PUT): the bar ends full.
    expect((await bar()).at(-1)).toBe((await readFile(TEST_MEDIA.jfkWav)).length);
  });

  it(
    "uploads the 2-minute video with the bar moving; its connection dropped " +
      "mid-chunk, it resumes from what clipd kept",
    async () => {
      await page.goto(url("/episodes/new"));
      await page.getByLabel("Name", { exact: true }).fill("Two voices");
      await page.getByLabel("Target clip length").selectOption("15");
      const bar = await watchUploadBar(page);
      proxy.uploads.length = 0;
      // The second of four 8 MiB chunks stalls after 3 MiB reach clipd (a still picture of the bar
      // part-way), then its connection drops.
      const stalled = proxy.stallOnce(8 * MiB, 3 * MiB);
      await page.getByLabel("Video or audio file").setInputFiles(video);
      await page.getByRole("button", { name: "Create episode" }).click();
      const cut = await stalled;
      await shoot(page, "new-episode-upload", {
        before: () => page.getByRole("progressbar", { name: "Upload progress" }).scrollIntoViewIfNeeded(),
      });
      cut.drop();
      await page.waitForURL(episodeUrl);
      ids.video = episodeUrl.exec(page.url())![1]!;

      const total = (await readFile(video)).length;
      const log = proxy.uploads.slice();
      const said = `uploads: ${log.join(", ")}; dropped ${cut.range} after ${cut.forwarded} bytes`;
      const firsts = log.filter((l) => l.startsWith("PUT ")).map((l) => Number(/^PUT (\d+)-/.exec(l)?.[1]));
      expect(log[0], said).toBe(`PUT 0-${8 * MiB - 1}/${total}`);
      // After the drop the page went on from inside the broken chunk (HEAD's Upload-Offset, or the
      // offset of a 409 when Chromium resent the request itself), not from its start.
      expect(
        firsts.some((f) => f > cut.first && f <= cut.first + cut.forwarded),
        said,
      ).toBe(true);
      expect(log.at(-1), said).toMatch(new RegExp(`-${total - 1}/${total}$`));
      const values = await bar();
      expect(rises(values), `bar values ${values.join(", ")}`).toBeGreaterThanOrEqual(3);
      expect(values.at(-1)).toBe(total);
    },
  );

  it("brings both episodes to their clips, and stores the resumed upload byte for byte", async () => {
    for (const id of [ids.jfk, ids.video]) {
      await page.goto(url(`/episodes/${id}`));
      await page.locator(".page-head .badge").getByText("Ready", { exact: true }).waitFor();
      await clipCards().first().waitFor();
    }
    expect(await clipCards().count()).toBeGreaterThanOrEqual(2);
    const media = (await inPage(`/episodes/${ids.video}/media`)) as { source: { url: string } };
    expect(sha256(await fetchBytes(media.source.url))).toBe(sha256(await readFile(video)));
    await page.goto(url("/episodes"));
    await page.getByRole("list", { name: "Your episodes" }).getByRole("listitem").nth(1).waitFor();
    await shoot(page, "episodes");
  });

  it("previews a clip: the source player plays its first piece", async () => {
    await page.goto(url(`/episodes/${ids.video}`));
    const first = clipCards().first();
    const title = (await first.getByRole("heading", { level: 3 }).textContent())!;
    const media = (await inPage(`/episodes/${ids.video}/media`)) as {
      clips: Array<{ clip_id: string; pieces: Array<{ start: number; end: number }> }>;
    };
    const clipId = (await first.getAttribute("aria-labelledby"))!.replace(/^clip-|-t$/g, "");
    const piece = media.clips.find((c) => c.clip_id === clipId)!.pieces[0]!;
    await first.getByRole("button", { name: "Preview" }).click();
    await page.getByText(`Previewing ${title}`).waitFor();
    const player = page.getByLabel("Source of Two voices");
    await player.evaluate(
      (v: HTMLVideoElement, start: number) =>
        new Promise<void>((resolve) => {
          const check = () => (!v.paused && v.currentTime > start + 0.5 ? resolve() : requestAnimationFrame(check));
          check();
        }),
      piece.start,
    );
    await shoot(page, "episode", { before: () => page.evaluate(() => window.scrollTo(0, 0)) });
    await first.getByRole("button", { name: "Stop preview" }).click();
    await page.getByText("Preview stopped.").waitFor();
  });

  it("cuts two clips in two styles, and the page's Download gives a 1080x1920 H.264 clip", async () => {
    const cutPanel = page.getByRole("region", { name: "Cut and style" });
    for (const [i, style] of [
      [0, "Bold punch"],
      [1, "Boxed"],
    ] as const) {
      const card = clipCards().nth(i);
      const title = (await card.getByRole("heading", { level: 3 }).textContent())!;
      await card.getByRole("checkbox", { name: /^Choose clip \d+$/ }).check();
      await cutPanel.getByRole("group", { name: "Caption style" }).getByRole("radio", { name: style }).check();
      // The second clip asks for clean captions: the panel sends them as the API's look fields.
      if (i === 1) await cutPanel.getByLabel("Profanity").selectOption("mask");
      const answer = page.waitForResponse(
        (r) => r.request().method() === "POST" && r.url().endsWith(`/episodes/${ids.video}/clips`),
      );
      await cutPanel.getByRole("button", { name: "Cut 1 clip" }).click();
      const response = await answer;
      expect(response.request().postDataJSON()).toMatchObject({
        censor: i === 1 ? "mask" : "off",
        emphasis: true,
        emoji: false,
      });
      const { jobs } = (await response.json()) as { jobs: Array<{ job_id: string; clip_id: string }> };
      expect(jobs).toHaveLength(1);
      cuts.push({ clipId: jobs[0]!.clip_id, title, style, jobId: jobs[0]!.job_id });
    }
    for (const c of cuts) await made(c.title).getByLabel(`Made clip ${c.title}`).waitFor();
    const clips = (await api(`/episodes/${ids.video}`)).clips as Array<{
      clip_id: string;
      style: string;
      export_status: string;
    }>;
    expect(cuts.map((c) => clips.find((x) => x.clip_id === c.clipId)?.style)).toEqual(["bold-punch", "boxed"]);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      made(cuts[0]!.title).getByRole("link", { name: "Download" }).click(),
    ]);
    const facts = await probeVideo((await download.path())!);
    expect(facts).toMatchObject({ codec: "h264", width: 1080, height: 1920 });
    // A frame of the made clip with its burned captions rather than the poster (a seek hides it).
    await made(cuts[0]!.title)
      .getByLabel(`Made clip ${cuts[0]!.title}`)
      .evaluate((v: HTMLVideoElement) => new Promise((resolve) => ((v.onseeked = resolve), (v.currentTime = 3))));
    await shoot(page, "episode-made", { before: () => toTop(made(cuts[0]!.title)) });
  });

  it("restyles a clip: a new job renders it again, and the player shows the new file", async () => {
    const c = cuts[1]!;
    const card = made(c.title);
    const player = card.getByLabel(`Made clip ${c.title}`);
    const before = (await player.getAttribute("src"))!;
    const oldBytes = await fetchBytes(new URL(before, proxy.url).href);
    await card.getByText("Change the look").click();
    await card.getByRole("group", { name: "Caption style" }).getByRole("radio", { name: "Clean" }).check();
    const answer = page.waitForResponse(
      (r) => r.request().method() === "PATCH" && r.url().endsWith(`/clips/${c.clipId}`),
    );
    await card.getByRole("button", { name: "Restyle" }).click();
    const restyled = (await (await answer).json()) as { job_id: string; changes: string[] };
    expect(restyled.job_id).not.toBe(c.jobId);
    await card.getByText(/^Rendering again: /).waitFor();
    // Done when the page's poll of the new job sees it completed: the player then plays its file.
    await card.getByText(/^Restyled: /).waitFor();
    await waitForSrcChange(player, before);
    const after = (await player.getAttribute("src"))!;
    expect(sha256(await fetchBytes(new URL(after, proxy.url).href))).not.toBe(sha256(oldBytes));
    const clip = ((await api(`/episodes/${ids.video}`)).clips as Array<{ clip_id: string; style: string }>).find(
      (x) => x.clip_id === c.clipId,
    );
    expect(clip?.style).toBe("clean");
    cuts.push({ ...c, style: "Clean", jobId: restyled.job_id });
  });

  it(
    "sends episode.ready and clip.ready for the website's work, and leaves " + "the plan's API allowance unused",
    async () => {
      const events = () =>
        receiver.receipts.map((r) => ({
          ...r,
          json: JSON.parse(r.body) as { type: string; data: Record<string, any> },
        }));
      const jobIds = cuts.map((c) => c.jobId);
      await waitFor(
        () => {
          const got = events();
          const ready = new Set(got.filter((e) => e.json.type === "episode.ready").map((e) => e.json.data.episode_id));
          const clipReady = new Set(got.filter((e) => e.json.type === "clip.ready").map((e) => e.json.data.job_id));
          return ready.has(ids.jfk) && ready.has(ids.video) && jobIds.every((j) => clipReady.has(j));
        },
        { what: "episode.ready for both episodes and clip.ready for the three renders", timeoutMs: 120_000 },
      );
      for (const e of events()) expect(e, e.error).toMatchObject({ verified: true, answered: 200 });
      const clipReady = events().filter((e) => e.json.type === "clip.ready");
      for (const e of clipReady) expect(e.json.data).toMatchObject({ episode_id: ids.video, status: "completed" });

      const me = await api("/me");
      expect(me.account).toMatchObject({ email: who.email, plan: true });
      expect(me.limits.plan_episodes_per_month).toBeGreaterThan(0);
      expect(me.usage.plan_episodes_used).toBe(0);
      expect(me.usage.spent_cents).toBeGreaterThan(0); // the website's episodes were paid from credit
    },
  );

  it("photographs the episode page's clips and its cut panel", async () => {
    await page.goto(url(`/episodes/${ids.video}`));
    await clipCards().first().waitFor();
    await shoot(page, "episode-clips", {
      before: () => toTop(page.getByRole("heading", { level: 2, name: "Clips", exact: true })),
    });
    // The cut form shows once a clip is chosen.
    await clipCards()
      .first()
      .getByRole("checkbox", { name: /^Choose clip \d+$/ })
      .check();
    const cut = page.getByRole("region", { name: "Cut and style" });
    await shoot(page, "episode-cut", {
      before: () => toTop(cut.getByRole("heading", { level: 2, name: "Cut and style" })),
    });
  });
});

/** Scrolls the page so that `el` is at the top of the window, for a picture of what follows it. */
const toTop = (el: Locator) => el.evaluate((e) => e.scrollIntoView({ block: "start" }));

/** Waits until the made clip's player (a new element when its source changes) plays another file than `before`. */
async function waitForSrcChange(el: Locator, before: string): Promise<void> {
  const label = (await el.getAttribute("aria-label"))!;
  await el
    .page()
    .waitForFunction(
      ([l, old]) =>
        [...document.querySelectorAll("video")].some(
          (v) => v.getAttribute("aria-label") === l && v.getAttribute("src") !== old,
        ),
      [label, before] as const,
    );
}
