// Helpers of the studio's browser tests: an operator-made account (plan, credit, a password, a
// live key) signed in through the page, the upload bar's values as the page shows them, the
// pictures of a page in its current state, and ffprobe of a downloaded clip.
import { createHash } from "node:crypto";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { Page } from "playwright-core";
import { VIEWPORTS, type WebClipd } from "./browser.js";
import { repoRoot } from "./cli.js";
import { TEST_MEDIA } from "./media.js";
import { waitFor } from "./wait.js";

const exec = promisify(execFile);

/** The last line of a CLI's output that is a JSON object (the CLI prints its answer last). */
export function lastJson(output: string): Record<string, any> {
  for (const line of output.trim().split("\n").reverse()) {
    if (line.startsWith("{")) return JSON.parse(line);
  }
  throw new Error(`no JSON answer in:\n${output}`);
}

export interface OperatorAccount {
  accountId: string;
  email: string;
  password: string;
  /** A live API key with every scope. */
  live: string;
}

/**
 * An account as the operator makes one: `clipd account create` with the plan (so the API
 * allowance exists) and credit (the website's episodes are paid from it), a password set with
 * `clipd account reset-password`, and a live key from `clipd key create`.
 */
export async function operatorAccount(
  clipd: WebClipd,
  email: string,
  password: string,
  creditCents = 5000,
): Promise<OperatorAccount> {
  const made = lastJson(
    await clipd.cli(["account", "create", "--email", email, "--plan", "--credit-cents", String(creditCents)]),
  );
  await clipd.cli(["account", "reset-password", "--email", email, "--password", password]);
  const key = lastJson(
    await clipd.cli([
      "key",
      "create",
      "--account",
      made.account_id,
      "--mode",
      "live",
      "--scopes",
      "clips.read,clips.write,transcripts,webhooks",
    ]),
  );
  return { accountId: String(made.account_id), email, password, live: String(key.key) };
}

/** Signs in through the sign-in page at `base` and waits for the page it lands on. */
export async function signInThroughPage(
  page: Page,
  base: string,
  who: { email: string; password: string },
): Promise<void> {
  await page.goto(`${base}/signin?next=%2Fepisodes`);
  await page.getByLabel("Email", { exact: true }).fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "Episodes" }).waitFor();
}

/**
 * Records every value the page's "Upload progress" bar takes from now on (a MutationObserver in
 * the page, so no value is missed between two reads); the returned function reads them.
 */
export async function watchUploadBar(page: Page): Promise<() => Promise<number[]>> {
  await page.evaluate(() => {
    const seen: number[] = [];
    (window as unknown as { __uploadBar: number[] }).__uploadBar = seen;
    const look = () => {
      const bar = document.querySelector<HTMLProgressElement>('progress[aria-label="Upload progress"]');
      if (bar && seen[seen.length - 1] !== bar.value) seen.push(bar.value);
    };
    new MutationObserver(look).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ["value"],
    });
  });
  return () => page.evaluate(() => (window as unknown as { __uploadBar?: number[] }).__uploadBar ?? []);
}

/** The number of times `values` goes up. */
export const rises = (values: number[]) => values.filter((v, i) => i > 0 && v > values[i - 1]!).length;

/**
 * Photographs what the page shows now, at phone and then desktop width, into
 * docs/screenshots/<name>-<phone|desktop>.png; `ready` waits for the state to show after the
 * resize (and `before` may scroll something into view). Ends at desktop width.
 */
export async function shoot(
  page: Page,
  name: string,
  opts: { ready?: () => Promise<unknown>; before?: () => Promise<unknown> } = {},
): Promise<void> {
  for (const [kind, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    await opts.ready?.();
    await opts.before?.();
    // The page's images (posters, waveform, style stills) are in before the picture is taken.
    await page.waitForFunction(() => [...document.images].every((i) => i.complete || i.loading === "lazy"));
    await page.screenshot({
      path: path.join(repoRoot, "docs", "screenshots", `${name}-${kind}.png`),
      animations: "disabled",
      caret: "hide",
    });
  }
}

export interface VideoFacts {
  codec: string;
  width: number;
  height: number;
  seconds: number;
  audio: string | null;
}

/** ffprobe's view of a video file's first video and audio streams. */
export async function probeVideo(file: string): Promise<VideoFacts> {
  const { stdout } = await exec("ffprobe", [
    "-v",
    "error",
    "-print_format",
    "json",
    "-show_streams",
    "-show_format",
    file,
  ]);
  const j = JSON.parse(stdout) as { streams: Array<Record<string, any>>; format: { duration: string } };
  const v = j.streams.find((s) => s.codec_type === "video");
  if (!v) throw new Error(`${file} has no video stream`);
  const a = j.streams.find((s) => s.codec_type === "audio");
  return {
    codec: v.codec_name,
    width: v.width,
    height: v.height,
    seconds: Number(j.format.duration),
    audio: a?.codec_name ?? null,
  };
}

export const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");
export const sha256File = async (file: string) => sha256(await readFile(file));

/** The bytes behind a link (a signed download or source link needs no cookie). */
export async function fetchBytes(url: string): Promise<Buffer> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

/** A call of the account API with `key`, expected to answer 2xx; its JSON body. */
export type KeyApi = (method: string, p: string, body?: unknown) => Promise<any>;

/** The account API of the clipd at `base()`, called with the key `key()` (both read at call time). */
export function keyApi(base: () => string, key: () => string): KeyApi {
  return async (method, p, body) => {
    const res = await fetch(`${base()}/api/v1${p}`, {
      method,
      headers: { authorization: `Bearer ${key()}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (res.status >= 300) throw new Error(`${method} ${p} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
}

/**
 * jfk.wav (or another `file`, such as jfk's speech under a picture) made an episode through the
 * upload API, then waited on (state, not time) until ready.
 */
export async function readyJfkEpisode(api: KeyApi, name: string, file = TEST_MEDIA.jfkWav): Promise<any> {
  const made = await api("POST", "/episodes", { name, file_name: path.basename(file) });
  const put = await fetch(made.upload.url, {
    method: "PUT",
    headers: made.upload.headers,
    body: await readFile(file),
  });
  if (put.status !== 200) throw new Error(`the upload PUT answered ${put.status}`);
  await api("POST", `/episodes/${made.episode_id}/uploaded`, {});
  return waitFor(
    async () => {
      const ep = await api("GET", `/episodes/${made.episode_id}`);
      return ep.status === "ready" ? ep : undefined;
    },
    { timeoutMs: 300_000, intervalMs: 300, what: `episode "${name}" ready` },
  );
}
