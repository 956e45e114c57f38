/**
 * The episode that bench/web.ts audits on the studio's episode page, made as the website makes one:
 * the generated 2-minute two-voice video (test/fixtures/episodes.ts, cached) is uploaded to the
 * signed address POST /web/api/v1/episodes hands out, started, searched for clips, and one clip is
 * cut, so the page shows what a person sees after a first cut: the source player, the waveform
 * with its marks, the transcript, the ranked clip cards with posters, the style gallery and a made
 * clip. The website's episodes are paid from credit, which the operator's `clipd credit add` gives.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { projectRoot } from "../config/loader.js";
import { makeEpisode } from "../test/fixtures/episodes.js";

/** A call to the site's own API with the session's cookies and CSRF token; throws on an error answer. */
// biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
export type WebCall = (method: string, p: string, body?: unknown) => Promise<any>;

const WAIT_MS = 600_000;

/** Calls `check` every second until it returns something, or throws after `what` took too long. */
async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + WAIT_MS;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what} took more than ${WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Makes the episode through `call` (a signed-in session) on the daemon `env` runs; returns its id. */
export async function makeWebEpisode(call: WebCall, env: NodeJS.ProcessEnv): Promise<string> {
  const { account } = await call("GET", "/web/api/v1/session");
  await promisify(execFile)(
    process.execPath,
    [
      path.join(projectRoot(), "dist", "daemon", "boot", "main.js"),
      "credit",
      "add",
      "--account",
      account.id,
      "--cents",
      "1000",
    ],
    { env },
  );
  const video = await makeEpisode({ seconds: 120, video: true });
  const made = await call("POST", "/web/api/v1/episodes", {
    name: "Two voices",
    file_name: "two-voices.mp4",
    content_type: "podcast",
    target_seconds: 15,
  });
  const put = await fetch(made.upload.url, {
    method: "PUT",
    headers: made.upload.headers,
    body: await readFile(video.file),
  });
  if (!put.ok) throw new Error(`the upload was refused: ${put.status} ${await put.text()}`);
  const id: string = made.episode_id;
  await call("POST", `/web/api/v1/episodes/${id}/uploaded`, {});
  const episode = await until("the episode's clip search", async () => {
    const e = await call("GET", `/web/api/v1/episodes/${id}`);
    if (e.status === "failed") throw new Error(`the episode failed: ${JSON.stringify(e.failure)}`);
    return e.status === "ready" ? e : undefined;
  });
  if (!episode.clips.length) throw new Error("the episode has no clips to show");
  const { jobs } = await call("POST", `/web/api/v1/episodes/${id}/clips`, {
    clips: [episode.clips[0].number],
    style: "boxed",
  });
  await until("the first cut", async () => {
    const j = await call("GET", `/web/api/v1/jobs/${jobs[0].job_id}`);
    if (j.status === "failed") throw new Error(`the cut failed: ${JSON.stringify(j.error)}`);
    return j.status === "completed" ? j : undefined;
  });
  return id;
}
