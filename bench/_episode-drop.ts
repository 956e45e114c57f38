// bench/episode's `video` way in: `clipd start` on the embedded database renders the top 3 clips
// of every dropped episode (render.render_top, the shipped default), and the clock runs from the
// rename into the inbox until outbox/<name>/ holds the three clips. Each stage's time comes from the
// runs themselves: the episode run's steps from run.json, the clip runs' steps from the ops route.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";

export interface Span {
  what: string;
  /** Seconds from the drop. */
  from: number;
  to: number;
}

export interface DropResult {
  wallSeconds: number;
  clips: number;
  state: string;
  spans: Span[];
}

const LIMIT_MS = 30 * 60_000;
const TOP = 3;

type StepView = { stage: string; phase: string; started_at?: string; finished_at?: string };
type RunView = { run_id: string; created_at: string; started_at?: string; finished_at?: string; steps: StepView[] };

export async function dropToRendered(main: string, root: string, file: string): Promise<DropResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-bench-drop-"));
  const data = path.join(dir, "data");
  const token = randomBytes(24).toString("hex");
  const config = path.join(dir, "clipd.yaml");
  await writeFile(
    config,
    stringify({
      render: { render_top: TOP },
      server: { port: 0, host: "127.0.0.1", ops_token: token },
      log: { pretty: false, level: "warn" },
    }),
  );
  const env: NodeJS.ProcessEnv = { ...process.env, CLIPD_DATA_DIR: data, CLIPD_CONFIG: config, FORCE_COLOR: "0" };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, [main, "start"], { env, cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const onData = (d: Buffer) => (log = (log + d.toString()).slice(-8000));
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const wait = () => new Promise((r) => setTimeout(r, 200));
  try {
    const upBy = Date.now() + 120_000;
    let url: string | undefined;
    while (!(url = /is up: (\S+)\/healthz/.exec(log)?.[1])) {
      if (Date.now() > upBy || child.exitCode !== null) throw new Error(`clipd start did not come up:\n${log}`);
      await wait();
    }
    const name = `bench-video${path.extname(file)}`;
    const inbox = path.join(data, "inbox");
    await mkdir(inbox, { recursive: true });
    // Copied under a dot-name first (not timed), then renamed in, as a finished download appears.
    await copyFile(file, path.join(inbox, `.${name}.part`));
    const t0 = Date.now();
    await rename(path.join(inbox, `.${name}.part`), path.join(inbox, name));
    const out = path.join(data, "outbox", "bench-video");
    const failed = path.join(data, "failed", `${name}.error.txt`);
    const deadline = t0 + LIMIT_MS;
    const status = path.join(data, "processing", `${name}.status.json`);
    let said = 0;
    while (!existsSync(path.join(out, "run.json"))) {
      if (existsSync(failed)) throw new Error(`the episode failed: ${await readFile(failed, "utf8")}`);
      if (Date.now() > deadline) throw new Error(`no outbox after ${LIMIT_MS / 1000} s:\n${log}`);
      // Where it is, every 30 s, from the watch folder's status file: a run cut short still says how far it got.
      if (Date.now() - said > 30_000) {
        said = Date.now();
        const now = await readFile(status, "utf8").catch(() => "(no status file)");
        console.error(`[drop +${((said - t0) / 1000).toFixed(0)}s] ${now.replace(/\s+/g, " ").slice(0, 300)}`);
      }
      await wait();
    }
    const wallSeconds = (Date.now() - t0) / 1000;
    const run = JSON.parse(await readFile(path.join(out, "run.json"), "utf8"));
    const at = (iso?: string) => (iso ? (Date.parse(iso) - t0) / 1000 : NaN);
    const spans: Span[] = [
      { what: "watch folder: stable wait and intake", from: 0, to: at(run.started_at ?? run.created_at) },
    ];
    for (const s of run.steps as StepView[])
      if (s.phase === "main")
        spans.push({ what: `episode: ${s.stage}`, from: at(s.started_at), to: at(s.finished_at) });
    for (const [i, c] of (run.clips_rendered as Array<{ run_id: string }>).entries()) {
      const res = await fetch(`${url}/api/v1/runs/${c.run_id}`, { headers: { authorization: `Bearer ${token}` } });
      const view = (await res.json()) as RunView;
      spans.push({ what: `clip ${i + 1}: queued`, from: at(view.created_at), to: at(view.steps[0]?.started_at) });
      for (const s of view.steps)
        if (s.phase === "main")
          spans.push({ what: `clip ${i + 1}: ${s.stage}`, from: at(s.started_at), to: at(s.finished_at) });
    }
    // Rendered: a clip run that succeeded and whose file is in the outbox.
    const files = readdirSync(out).filter((f) => f.endsWith(".mp4"));
    const clips = Math.min(
      files.length,
      (run.clips_rendered as Array<{ state: string }>).filter((c) => c.state === "succeeded").length,
    );
    return { wallSeconds, clips, state: run.state, spans };
  } finally {
    if (child.exitCode === null) child.kill("SIGTERM");
    await gone;
    await rm(dir, { recursive: true, force: true });
  }
}

export function dropReport(r: DropResult, seconds: number, cores: number): string[] {
  const out = [
    "",
    `Video episode (${Math.round(seconds / 60)} min, 1080p30, a scene change ` +
      `every 30 s), drop → top ${TOP} clips rendered, watch folder (clipd start, ` +
      `PGlite), ${cores} cores:`,
    "",
    "| span | from s | to s | seconds |",
    "|---|---:|---:|---:|",
    ...r.spans.map((s) => `| ${s.what} | ${s.from.toFixed(1)} | ${s.to.toFixed(1)} | ${(s.to - s.from).toFixed(1)} |`),
    `| **drop → ${r.clips} clips in the outbox** | 0.0 | ${r.wallSeconds.toFixed(1)} ` +
      `| **${r.wallSeconds.toFixed(1)}** |`,
    "",
    `Target (issue 17): drop → top ${TOP} clips rendered <= 0.3x episode length ` +
      `(${((0.3 * seconds) / 60).toFixed(0)} min): ` +
      `${r.wallSeconds <= 0.3 * seconds && r.clips >= TOP ? "met" : "NOT met"} ` +
      `(${(r.wallSeconds / seconds).toFixed(3)}x, ${r.clips} clips, run ${r.state}).`,
  ];
  return out;
}
