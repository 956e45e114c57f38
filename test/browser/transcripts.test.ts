// Transcripts in Debian's Chromium against a real `clipd start` on loopback, reached through a
// proxy that can break an upload mid-chunk (test/helpers/cut-proxy.ts). A transcript is ordered
// from a link and from an uploaded jfk.wav; its page lights the line being played, seeks from a
// clicked line and downloads SRT and VTT that a real WebVTT parser reads; the results link opens
// signed out. A 25 MB upload is held, cancelled and resumed, then cut mid-chunk until the page itself
// sees the dropped connection and retries: each time the page goes on from the bytes clipd kept,
// and the stored file is the original, byte for byte.
import { createHash } from "node:crypto";
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebVTTParser } from "webvtt-parser";
import { useBrowser, useWebClipd, VIEWPORTS } from "../helpers/browser.js";
import { startCutProxy, type CutProxy } from "../helpers/cut-proxy.js";
import { serveFile, startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { repoRoot } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

const MiB = 1024 * 1024;
const sha = async (file: string) =>
  createHash("sha256")
    .update(await readFile(file))
    .digest("hex");

/** Every file under `dir` named `name`. */
async function findFiles(dir: string, name: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile() && e.name === name) out.push(path.join(e.parentPath, e.name));
  return out;
}

describe("transcripts in a browser", () => {
  const browser = useBrowser();
  // The account signed up here is never verified (no mail): the free transcripts are given anyway.
  const clipd = useWebClipd({
    config: { transcribe: { engine: "pocketsphinx" }, web: { free_transcripts_unverified: true } },
  });
  let media: TestHttpsServer;
  let proxy: CutProxy;
  let context: BrowserContext;
  let page: Page;
  let scratch: string;
  let big: string;
  let resultsUrl = "";
  const url = (p: string) => proxy.url + p;
  const h1 = (name: string) => page.getByRole("heading", { level: 1, name });
  /** Photographs what the page shows now at phone and desktop width, into docs/screenshots/. */
  async function shoot(p: Page, name: string) {
    for (const [kind, size] of Object.entries(VIEWPORTS)) {
      await p.setViewportSize(size);
      await p.screenshot({
        path: path.join(repoRoot, "docs", "screenshots", `${name}-${kind}.png`),
        animations: "disabled",
        caret: "hide",
      });
    }
    await p.setViewportSize(VIEWPORTS.desktop);
  }

  beforeAll(async () => {
    media = await startHttpsServer({ "/talks/jfk.wav": serveFile(TEST_MEDIA.jfkWav, "audio/wav") });
    proxy = await startCutProxy({ host: "127.0.0.1", port: clipd().port });
    scratch = await mkdtemp(path.join(tmpdir(), "clipd-upload-"));
    // 130 s of 48 kHz stereo silence: 25 MB, three chunks and a bit, quick for the recogniser.
    big = path.join(scratch, "long-take.wav");
    await promisify(execFile)("ffmpeg", [
      "-hide_banner",
      "-loglevel",
      "error",
      "-f",
      "lavfi",
      "-i",
      "anullsrc=r=48000:cl=stereo",
      "-t",
      "130",
      "-c:a",
      "pcm_s16le",
      big,
    ]);
    context = await browser().newContext({ viewport: VIEWPORTS.desktop, acceptDownloads: true });
    context.setDefaultTimeout(120_000); // a ceiling on the waits below, not a delay
    page = await context.newPage();
    await page.goto(url("/signup"));
    await page.getByLabel("Email", { exact: true }).fill("grace@example.com");
    await page.getByLabel("Password", { exact: true }).fill("a long enough password");
    await page.getByRole("button", { name: "Sign up" }).click();
    await h1("Episodes").waitFor();
  });
  afterAll(async () => {
    await context?.close();
    await proxy?.close();
    await media?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it(
    "orders a transcript from a link; its page plays from a clicked line, lights " + "it, and downloads SRT and VTT",
    async () => {
      await page.goto(url("/transcripts"));
      await page.getByText("0 of 3 free transcripts used this month", { exact: false }).waitFor();
      await page.getByLabel("Link to the recording").fill(media.url("/talks/jfk.wav"));
      await page.getByRole("button", { name: "Transcribe" }).click();
      await page.waitForURL(/\/transcripts\/[0-9a-f-]{36}$/);
      await page.getByRole("heading", { name: "Downloads" }).waitFor();
      const lines = page.getByRole("list", { name: "Transcript lines" }).getByRole("button");
      expect(await lines.count()).toBeGreaterThan(1);
      expect((await page.getByRole("list", { name: "Transcript lines" }).textContent())!.toLowerCase()).toContain(
        "country",
      );

      const last = lines.last();
      const start = await last.locator(".cue-time").textContent();
      await last.click();
      await expect.poll(() => last.getAttribute("aria-current")).toBe("true");
      const at = await page.locator("audio").evaluate((a: HTMLAudioElement) => a.currentTime);
      const [m, s] = start!.split(":").map(Number);
      expect(Math.floor(at)).toBe(m! * 60 + s!);

      const download = async (name: string) => {
        const [d] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name }).click()]);
        return readFile((await d.path())!, "utf8");
      };
      const vtt = new WebVTTParser().parse(await download("Download VTT"), "metadata");
      expect(vtt.errors).toEqual([]);
      expect(
        vtt.cues
          .map((c: { text: string }) => c.text)
          .join(" ")
          .toLowerCase(),
      ).toContain("country");
      expect(await download("Download SRT")).toMatch(/^1\r?\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\r?\n\S/);
      expect((await download("Download TXT")).toLowerCase()).toContain("country");
      resultsUrl = (await page.getByRole("link", { name: "Results page" }).getAttribute("href"))!;
      await shoot(page, "transcript");
    },
  );

  it("opens the results link signed out: text, player and downloads without an account", async () => {
    expect(resultsUrl).toMatch(/\/r\/[\w.-]+$/);
    const other = await browser().newContext({ viewport: VIEWPORTS.desktop });
    try {
      const p = await other.newPage();
      await p.goto(resultsUrl);
      await p.getByRole("heading", { level: 1, name: "jfk" }).waitFor();
      await p.getByRole("list", { name: "Transcript lines" }).waitFor();
      for (const name of ["Download TXT", "Download SRT", "Download VTT"])
        await p.getByRole("link", { name }).waitFor();
      await shoot(p, "results");
    } finally {
      await other.close();
    }
  });

  it("uploads jfk.wav through the page and transcribes it", async () => {
    await page.goto(url("/transcripts"));
    await page.getByText("1 of 3 free transcripts used this month", { exact: false }).waitFor();
    await shoot(page, "transcripts");
    await page.getByRole("radio", { name: "A file" }).check();
    await page.getByLabel("Recording file").setInputFiles(TEST_MEDIA.jfkWav);
    await page.getByRole("button", { name: "Transcribe" }).click();
    await page.waitForURL(/\/transcripts\/[0-9a-f-]{36}$/);
    await h1("jfk.wav").or(h1("jfk")).waitFor();
    await page.getByRole("heading", { name: "Downloads" }).waitFor();
    expect((await page.locator(".results").textContent())!.toLowerCase()).toContain("country");
  });

  it("resumes an upload after a Cancel and after a connection cut mid-chunk, from the bytes clipd kept", async () => {
    const total = (await stat(big)).size;
    proxy.log.length = 0;
    const held = proxy.arm({ first: (f) => f === 0, after: 1 * MiB, mode: "hold" });
    // Chromium resends a request broken on a reused connection by itself, so the cut goes on for
    // every try past 8 MiB until the page itself says it lost the connection (bounded at 20).
    const cut = proxy.arm({ first: (f) => f !== null && f >= 8 * MiB, after: 3 * MiB, mode: "cut", times: 20 });
    await page.goto(url("/transcripts"));
    await page.getByRole("radio", { name: "A file" }).check();
    await page.getByLabel("Recording file").setInputFiles(big);
    // Every value the bar takes, to see it move, and every note under it, to see the retries.
    await page.evaluate(() => {
      const w = window as any;
      const seen: number[] = (w.__seen = []);
      const notes: string[] = (w.__notes = []);
      new MutationObserver(() => {
        const bar = document.querySelector<HTMLProgressElement>('progress[aria-label="Upload progress"]');
        if (bar && seen[seen.length - 1] !== bar.value) seen.push(bar.value);
        const note = document.querySelector(".upload-note")?.textContent ?? "";
        if (note && notes[notes.length - 1] !== note) notes.push(note);
      }).observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
        attributeFilter: ["value"],
      });
    });
    await page.getByRole("button", { name: "Transcribe" }).click();
    // An upload that ends without the proxy breaking it fails here at once rather than waiting.
    const finished = page.waitForURL(/\/transcripts\/[0-9a-f-]{36}$/).then(() => {
      throw new Error(`the upload finished without being broken: ${proxy.log.join(", ")}`);
    });
    finished.catch(() => {});

    await Promise.race([held, finished]);
    await page.getByRole("progressbar", { name: "Upload progress" }).waitFor();
    await shoot(page, "transcripts-upload");
    await page.getByRole("button", { name: "Cancel upload" }).click();
    await page.getByText("Upload cancelled.", { exact: false }).waitFor();
    await page.getByRole("button", { name: "Resume upload" }).click();
    const dropped = await Promise.race([cut, finished]);
    await waitFor(
      () => page.evaluate(() => (window as any).__notes.some((n: string) => n.startsWith("The connection dropped"))),
      { what: "the page to notice the dropped connection" },
    );
    proxy.disarm();
    await page.waitForURL(/\/transcripts\/[0-9a-f-]{36}$/);

    // After each break the page went on from the bytes clipd holds (HEAD's Upload-Offset, or a
    // 409's offset when Chromium resent the broken request itself): past the break, and not from
    // a chunk edge.
    const log = proxy.log.slice();
    const firsts = log.filter((l) => l.startsWith("PUT ")).map((l) => Number(/^PUT (\d+)-/.exec(l)?.[1]));
    const cutStart = Number(/^bytes (\d+)-/.exec(dropped.range!)![1]);
    const notes: string[] = await page.evaluate(() => (window as any).__notes);
    const said =
      `requests: ${log.join(", ")}; held after ${MiB}, cut at ${cutStart}+${dropped.forwarded}; ` +
      `notes: ${notes.join(" | ")}`;
    expect(log.slice(0, 2), said).toEqual([`PUT 0-${8 * MiB - 1}/${total}`, "HEAD"]);
    expect(firsts[1]! > 0 && firsts[1]! <= MiB, said).toBe(true);
    expect(
      firsts.some((f) => f > cutStart && f % (8 * MiB) !== 0 && f < total),
      said,
    ).toBe(true);
    expect(log.filter((l) => l === "HEAD").length, said).toBeGreaterThanOrEqual(2);
    // The page's own retry ran: it said so, then asked HEAD and went on.
    expect(
      notes.some((n) =>
        /^The connection dropped at \d+% \([\d.]+ MB sent\)\. Trying again in 1 s \(try 1 of 5\)/.test(n),
      ),
      said,
    ).toBe(true);
    expect(log.at(-1), said).toMatch(new RegExp(`-${total - 1}/${total}$`));

    const seen: number[] = await page.evaluate(() => (window as any).__seen ?? []);
    expect(seen.filter((v, i) => i > 0 && v > seen[i - 1]!).length).toBeGreaterThanOrEqual(3);
    // The store only: a step's work folder (under work/) may be removed while it is read.
    const stored = await findFiles(path.join(clipd().dataDir, "storage"), "long-take.wav");
    expect(stored).toHaveLength(1);
    expect(await sha(stored[0]!)).toBe(await sha(big));
  });
});
