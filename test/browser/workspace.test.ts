// The episode page as a workspace, and episodes that never get stuck (issue 31, items 2–5), in
// Debian's Chromium against a real `clipd start` on loopback, through a proxy that can stall an
// upload mid-chunk (test/helpers/drop-proxy.ts). An empty file and a file that is no media are
// refused in the browser before any episode is made; a page reloaded while its upload is in flight
// asks first (beforeunload), and the episode's own page takes the same file again and goes on from
// the bytes clipd kept, into the same episode. A signed-out deep link to an episode survives the
// sign-in. jfk.wav's workspace shows its clips as tiles beside the source (tabs on a phone), "Find
// more" lists its answers, and an episode is deleted from the list. axe finds nothing on each
// state; the workspace is photographed into docs/screenshots/workspace-*.png.
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeEpisode } from "../fixtures/episodes.js";
import { useBrowser, useWebClipd, VIEWPORTS } from "../helpers/browser.js";
import { startDropProxy, type DropProxy } from "../helpers/drop-proxy.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { operatorAccount, shoot, signInThroughPage, type OperatorAccount } from "../helpers/studio.js";
import { waitFor } from "../helpers/wait.js";

const MiB = 1024 * 1024;
const axeSource = (createRequire(import.meta.url)("axe-core") as { source: string }).source;

describe("the episode workspace in a browser", () => {
  const browser = useBrowser();
  const clipd = useWebClipd({ config: { transcribe: { engine: "pocketsphinx" } } });
  let proxy: DropProxy;
  let context: BrowserContext;
  let page: Page;
  let who: OperatorAccount;
  let scratch = "";
  let jfk = "";
  const url = (p: string) => proxy.url + p;
  const h1 = (name: string | RegExp) => page.getByRole("heading", { level: 1, name });
  const api = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${clipd().url}/api/v1${p}`, {
      method,
      headers: { authorization: `Bearer ${who.live}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
  const until = <T>(what: string, fn: () => Promise<T | undefined>) =>
    waitFor(fn, { timeoutMs: 300_000, intervalMs: 300, what });
  /** axe's violations on the page as it is now, as "rule: target" lines (none expected). */
  const axe = async (p: Page = page) => {
    await p.addScriptTag({ content: axeSource });
    return p.evaluate(async () => {
      const r = await (window as any).axe.run(document, { resultTypes: ["violations"] });
      return r.violations.map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(" ")).join(", ")}`);
    });
  };

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "clipd-workspace-"));
    who = await operatorAccount(clipd(), "workspace@example.com", "a long enough password");
    // jfk.wav made through the API meanwhile: the workspace tests need it ready.
    const made = await api("POST", "/episodes", { file_name: "jfk.wav", name: "JFK inaugural" });
    expect(made.status).toBe(202);
    jfk = made.body.episode_id;
    const put = await fetch(made.body.upload.url, {
      method: "PUT",
      headers: made.body.upload.headers,
      body: await readFile(TEST_MEDIA.jfkWav),
    });
    expect(put.status).toBe(200);
    expect((await api("POST", `/episodes/${jfk}/uploaded`)).status).toBe(200);
    proxy = await startDropProxy({ host: "127.0.0.1", port: clipd().port });
    context = await browser().newContext({ viewport: VIEWPORTS.desktop, bypassCSP: true });
    context.setDefaultTimeout(300_000); // a ceiling on the waits below, not a delay
    page = await context.newPage();
    await signInThroughPage(page, proxy.url, who);
  });
  afterAll(async () => {
    await context?.close();
    await proxy?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it("refuses an empty file and a file that is no media before any episode is made", async () => {
    const before = (await api("GET", "/episodes?limit=50")).body.episodes.length;
    const empty = path.join(scratch, "empty.mp4");
    const text = path.join(scratch, "notes.mp3");
    await writeFile(empty, "");
    await writeFile(text, "<html><body>not a recording</body></html>");
    await page.goto(url("/episodes/new"));
    await h1("New episode").waitFor();
    await page.getByLabel("Video or audio file").setInputFiles(empty);
    await page.getByRole("alert").filter({ hasText: "is empty (0 bytes)" }).waitFor();
    await page.getByLabel("Video or audio file").setInputFiles(text);
    await page.getByRole("alert").filter({ hasText: "does not start like one" }).waitFor();
    await page.getByRole("button", { name: "Create episode" }).click();
    await page.getByRole("alert").filter({ hasText: "choose a file to upload" }).waitFor();
    expect(await axe()).toEqual([]);
    expect((await api("GET", "/episodes?limit=50")).body.episodes.length).toBe(before);
  });

  it("asks before a reload mid-upload, then resumes into the same episode from its page", async () => {
    const video = path.join(scratch, "two-voices.mp4");
    await copyFile((await makeEpisode({ seconds: 120, video: true })).file, video);
    const total = (await readFile(video)).length;
    await page.goto(url("/episodes/new"));
    await page.getByLabel("Name", { exact: true }).fill("Resumed upload");
    await page.getByLabel("Video or audio file").setInputFiles(video);
    await page.getByText("Chosen: two-voices.mp4").waitFor();
    // The price line reads the file's length in the browser before anything is made.
    await page.getByText(/(will|would) cost about \$\d+\.\d\d from your credit/).waitFor();
    proxy.uploads.length = 0;
    const stalled = proxy.stallOnce(8 * MiB, 3 * MiB);
    await page.getByRole("button", { name: "Create episode" }).click();
    const cut = await stalled;
    const id = await until("the remembered upload", () =>
      page.evaluate(() =>
        Object.keys(localStorage)
          .find((k) => k.startsWith("clipd.upload."))
          ?.slice(13),
      ),
    );
    const asked: string[] = [];
    page.once("dialog", (d) => (asked.push(d.type()), void d.accept()));
    await page.reload();
    cut.drop();
    expect(asked).toEqual(["beforeunload"]);
    expect((await api("GET", `/episodes/${id}`)).body.status).toBe("awaiting_upload");

    await page.goto(url(`/episodes/${id}`));
    await h1("Resumed upload").waitFor();
    const finish = page.getByRole("region", { name: "Finish the upload" });
    await finish.waitFor();
    expect(await axe()).toEqual([]);
    proxy.uploads.length = 0;
    await finish.getByLabel("Choose the file again").setInputFiles(video);
    await until("the resumed episode to start", async () => {
      const s = (await api("GET", `/episodes/${id}`)).body.status;
      return s !== "awaiting_upload" ? s : undefined;
    });
    const log = proxy.uploads.slice();
    // It asked what clipd held, and went on from there, not from byte 0.
    expect(log[0], log.join(", ")).toBe("HEAD");
    const firsts = log.filter((l) => l.startsWith("PUT ")).map((l) => Number(/^PUT (\d+)-/.exec(l)?.[1]));
    expect(firsts[0], log.join(", ")).toBeGreaterThanOrEqual(8 * MiB);
    expect(log.at(-1)).toMatch(new RegExp(`-${total - 1}/${total}$`));
    await page.getByRole("progressbar", { name: "Episode progress" }).waitFor();
    // Leave it running no longer than needed: stop it from its page.
    page.once("dialog", (d) => void d.accept());
    await page.getByRole("button", { name: "Stop Resumed upload" }).click();
    await until("the episode to stop", async () =>
      (await api("GET", `/episodes/${id}`)).body.status === "failed" ? true : undefined,
    );
  });

  it("keeps a deep link through sign-in", async () => {
    const other = await browser().newContext({ viewport: VIEWPORTS.desktop });
    try {
      const p = await other.newPage();
      await p.goto(url(`/episodes/${jfk}`));
      await p.waitForURL(/\/signin\?next=/);
      await p.getByLabel("Email", { exact: true }).fill(who.email);
      await p.getByLabel("Password", { exact: true }).fill(who.password);
      await p.getByRole("button", { name: "Sign in" }).click();
      await p.getByRole("heading", { level: 1, name: "JFK inaugural" }).waitFor();
      expect(new URL(p.url()).pathname).toBe(`/episodes/${jfk}`);
    } finally {
      await other.close();
    }
  });

  it("shows jfk.wav's clips as tiles beside the source, sorted and found more of", async () => {
    await until("jfk.wav to be ready", async () => {
      const e = (await api("GET", `/episodes/${jfk}`)).body;
      if (e.status === "failed") throw new Error(JSON.stringify(e.failure));
      return e.status === "ready" ? e : undefined;
    });
    await page.goto(url(`/episodes/${jfk}`));
    await h1("JFK inaugural").waitFor();
    const list = page.getByRole("list", { name: "Found clips, best first" });
    const tiles = list.getByRole("article");
    await tiles.first().waitFor();
    const first = tiles.first();
    const title = (await first.getByRole("heading", { level: 3 }).textContent())!;
    await expect(first.getByRole("link", { name: "Edit clip" }).getAttribute("href")).resolves.toMatch(
      new RegExp(`^/episodes/${jfk}/clips/\\d+/edit$`),
    );
    // No cut form until a clip is chosen; then it comes with its price.
    expect(await page.getByRole("region", { name: "Cut and style" }).count()).toBe(0);
    await first.getByRole("checkbox", { name: /^Choose clip \d+$/ }).check();
    const cutPanel = page.getByRole("region", { name: "Cut and style" });
    await cutPanel.getByText(/each after that costs \$\d+\.\d\d from your credit/).waitFor();
    await cutPanel.getByRole("button", { name: "Cut 1 clip" }).waitFor();
    await first.getByText("Why this clip").click();
    expect(await axe()).toEqual([]);
    await page.getByLabel("Sort clips").selectOption("time");
    await page.getByRole("list", { name: "Found clips, in episode order" }).waitFor();
    await page.getByLabel("Sort clips").selectOption("score");
    await first.getByRole("checkbox", { name: /^Choose clip \d+$/ }).uncheck();
    await page.evaluate(() => window.scrollTo(0, 0));
    await shoot(page, "workspace", {
      ready: () => list.getByRole("article").first().waitFor(),
      before: () => page.evaluate(() => window.scrollTo(0, 0)),
    });
    expect(title.length).toBeGreaterThan(0);

    // "Find more" lists what it found (or says there was nothing) once its search is over.
    await page.getByLabel("Find more about…").fill("country");
    await page.getByRole("button", { name: "Find more" }).click();
    const said = page.getByText(/^(\d+ clips? about “country”:|No clips about “country” were found\.)$/);
    await said.waitFor();
    const text = (await said.textContent())!;
    if (/^\d+/.test(text)) {
      const n = Number(/^(\d+)/.exec(text)![1]);
      await expect(page.locator(".found li").count()).resolves.toBe(n);
    }
    expect(await axe()).toEqual([]);
  });

  it("is two tabs on a phone, with a one-row header and its menu", async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    await page.goto(url(`/episodes/${jfk}`));
    await h1("JFK inaugural").waitFor();
    const tabs = page.getByRole("tablist", { name: "Workspace" });
    await tabs.getByRole("tab", { name: /^Clips/ }).waitFor();
    expect(await page.getByRole("navigation", { name: "Main" }).isVisible()).toBe(false);
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Episodes" }).waitFor();
    await page.getByRole("button", { name: "Menu" }).click();
    expect(await axe()).toEqual([]);
    await tabs.getByRole("tab", { name: "Source and transcript" }).click();
    await page.getByRole("region", { name: "Transcript" }).waitFor();
    expect(await page.getByRole("list", { name: "Found clips, best first" }).isVisible()).toBe(false);
    expect(await axe()).toEqual([]);
    await page.setViewportSize(VIEWPORTS.desktop);
  });

  it("deletes an episode from the list", async () => {
    const made = await api("POST", "/episodes", { file_name: "never.mp3", name: "Never uploaded" });
    expect(made.status).toBe(202);
    await page.goto(url("/episodes"));
    const list = page.getByRole("list", { name: "Your episodes" });
    await list.getByRole("heading", { name: "Never uploaded" }).waitFor();
    await list.getByText("The file never arrived").waitFor();
    expect(await axe()).toEqual([]);
    page.once("dialog", (d) => void d.accept());
    await list.getByRole("button", { name: "Delete Never uploaded" }).click();
    await list.getByRole("heading", { name: "Never uploaded" }).waitFor({ state: "detached" });
    expect((await api("GET", `/episodes/${made.body.episode_id}`)).status).toBe(404);
  });

  it(
    "lands on the episodes after sign-in, shows the account in words, and billing " + "has no duplicate landmark",
    async () => {
      await page.goto(url("/account"));
      await h1("Account").waitFor();
      const defaults = page.getByRole("region", { name: "Saved clip defaults" });
      await defaults.getByText("Caption style").waitFor();
      const words = (await defaults.textContent())!;
      expect(words).not.toMatch(/aspect_ratio|brand_kit|save_as_default|null/);
      expect(await axe()).toEqual([]);
      await page.goto(url("/billing"));
      await h1("Billing").waitFor();
      await page.getByRole("heading", { name: "Ledger" }).waitFor();
      expect(await axe()).toEqual([]);
      await page.getByRole("button", { name: "Sign out", exact: true }).click();
      await h1("Sign in").waitFor();
      await page.getByLabel("Email", { exact: true }).fill(who.email);
      await page.getByLabel("Password", { exact: true }).fill(who.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await h1("Episodes").waitFor();
    },
  );
});
