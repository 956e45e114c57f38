/**
 * Episode benchmark: a generated 20-minute two-voice episode from drop to clips found.
 *
 *   npm run build && node dist/bench/episode.js
 *
 * Two ways in, each with the real CLI (dist/daemon/boot/main.js) in a child process and a fresh data
 * folder, rendering turned off (`render.render_top: 0`) so the time is the episode pipeline's:
 * - `watch`: `clipd start` on the embedded database; the file is copied into the inbox and the
 *   clock stops when outbox/<name>/clips.json appears. This includes the watch folder's
 *   stability wait (`watch.stable_ms`, 2 s) and the database start-up is excluded (the daemon is
 *   up before the drop).
 * - `run`: `clipd run episode <file> --out DIR`, from the command to its exit (process start-up,
 *   in-memory database and migrations included).
 * - `video` (bench/_episode-drop.ts): a 1080p video of the same speech with a scene change every
 *   30 s, dropped into the watch folder of `clipd start` with the shipped `render.render_top` (3);
 *   the clock stops when the outbox holds the three rendered clips, and each stage's span is printed.
 *   The video is made (and cached under .cache/bench/) before the clock starts.
 * Targets: issue 3, drop to clips found under 5 minutes; issue 17, a 20-minute video from drop to
 * its top 3 clips rendered within 0.3x its length (6 minutes) on 2 cores.
 * Knobs: BENCH_EPISODE_SECONDS (1200), BENCH_MODES (watch,run,video), BENCH_FORMAT (.mp3 or .wav; .mp3).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { projectRoot } from "../config/loader.js";
import { makeEpisode } from "../test/fixtures/episodes.js";
import { dropReport, dropToRendered, type DropResult } from "./_episode-drop.js";
import { makeVideoEpisode } from "./_episode-video.js";

const ROOT = projectRoot();
const MAIN = path.join(ROOT, "dist", "daemon", "boot", "main.js");
const SECONDS = Number(process.env.BENCH_EPISODE_SECONDS ?? 1200);
const MODES = (process.env.BENCH_MODES ?? "watch,run,video").split(",").map((s) => s.trim()) as Array<Mode | "video">;
const FORMAT = (process.env.BENCH_FORMAT ?? ".mp3") as ".mp3" | ".wav";
const LIMIT_MS = 15 * 60_000;
const CORES = os.availableParallelism();

type Mode = "watch" | "run";

interface Result {
  mode: Mode;
  wallSeconds: number;
  cpuSeconds: number;
  state: string;
  clips: number;
  steps: Record<string, number>;
}

/** CPU seconds of waited-for children (clipd and what it ran), from /proc/self/stat. */
function childCpuSeconds(): number {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return NaN;
  }
}

async function dataDirWithConfig() {
  const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-bench-episode-"));
  const config = path.join(dir, "clipd.yaml");
  await writeFile(
    config,
    stringify({
      render: { render_top: 0 },
      server: { port: 0, host: "127.0.0.1" },
      log: { pretty: false, level: "warn" },
    }),
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CLIPD_DATA_DIR: path.join(dir, "data"),
    CLIPD_CONFIG: config,
    FORCE_COLOR: "0",
  };
  delete env.DATABASE_URL;
  return { dir, env };
}

// biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
function stepSeconds(runJson: any): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of runJson.steps ?? []) {
    if (s.started_at && s.finished_at) out[s.stage] = (Date.parse(s.finished_at) - Date.parse(s.started_at)) / 1000;
  }
  return out;
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

async function benchRun(file: string): Promise<Result> {
  const { dir, env } = await dataDirWithConfig();
  const out = path.join(dir, "out");
  try {
    const cpu0 = childCpuSeconds();
    const t0 = performance.now();
    const child = spawn(process.execPath, [MAIN, "run", "episode", file, "--out", out], {
      env,
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr!.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    const timer = setTimeout(() => child.kill("SIGKILL"), LIMIT_MS);
    const code = await exited(child);
    clearTimeout(timer);
    const wallSeconds = (performance.now() - t0) / 1000;
    if (code !== 0) throw new Error(`clipd run exited ${code}: ${err}`);
    const run = JSON.parse(await readFile(path.join(out, "run.json"), "utf8"));
    const clips = JSON.parse(await readFile(path.join(out, "clips.json"), "utf8")).clips.length;
    return {
      mode: "run",
      wallSeconds,
      cpuSeconds: childCpuSeconds() - cpu0,
      state: run.state,
      clips,
      steps: stepSeconds(run),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function benchWatch(file: string): Promise<Result> {
  const { dir, env } = await dataDirWithConfig();
  const data = env.CLIPD_DATA_DIR!;
  const child = spawn(process.execPath, [MAIN, "start"], { env, cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const onData = (d: Buffer) => (log = (log + d.toString()).slice(-8000));
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const gone = exited(child);
  try {
    // Up once the facade says so (the watcher starts with it).
    const upBy = Date.now() + 120_000;
    while (!/is up/.test(log)) {
      if (Date.now() > upBy) throw new Error(`clipd start did not come up:\n${log}`);
      if (child.exitCode !== null) throw new Error(`clipd start exited ${child.exitCode}:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const name = `bench-episode${path.extname(file)}`;
    const inbox = path.join(data, "inbox");
    await mkdir(inbox, { recursive: true });
    const cpu0 = childCpuSeconds();
    const t0 = performance.now();
    // A drop: written under a dot-name, then renamed in, as a finished download appears.
    await copyFile(file, path.join(inbox, `.${name}.part`));
    const { rename } = await import("node:fs/promises");
    await rename(path.join(inbox, `.${name}.part`), path.join(inbox, name));
    const clipsFile = path.join(data, "outbox", "bench-episode", "clips.json");
    const failed = path.join(data, "failed", `${name}.error.txt`);
    const deadline = Date.now() + LIMIT_MS;
    while (!existsSync(clipsFile) || !existsSync(path.join(data, "outbox", "bench-episode", "run.json"))) {
      if (existsSync(failed)) throw new Error(`the episode failed: ${await readFile(failed, "utf8")}`);
      if (Date.now() > deadline) throw new Error(`no clips after ${LIMIT_MS / 1000} s:\n${log}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const wallSeconds = (performance.now() - t0) / 1000;
    child.kill("SIGTERM");
    await gone;
    const run = JSON.parse(await readFile(path.join(data, "outbox", "bench-episode", "run.json"), "utf8"));
    const clips = JSON.parse(await readFile(clipsFile, "utf8")).clips.length;
    return {
      mode: "watch",
      wallSeconds,
      cpuSeconds: childCpuSeconds() - cpu0,
      state: run.state,
      clips,
      steps: stepSeconds(run),
    };
  } finally {
    if (child.exitCode === null) {
      child.kill("SIGKILL");
      await gone;
    }
    await rm(dir, { recursive: true, force: true });
  }
}

function report(results: Result[], file: string): string {
  const cpu = os.cpus()[0]?.model?.trim() ?? "unknown CPU";
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  const stages = ["fetch-source", "probe", "transcribe", "find-clips", "notify"];
  const out = [
    `clipd episode benchmark, ${new Date().toISOString().slice(0, 10)}, Node ` +
      `${process.version}, ${CORES} cores (${cpu}), load average at the end ${load}`,
    `Episode: ${Math.round(SECONDS / 60)} min generated two-voice speech (${path.extname(file)}), ` +
      `drop to clips found, no rendering`,
    "",
    `| cores | way in | episode min | drop → clips s | × real time | CPU s ` +
      `| clips | ${stages.map((s) => `${s} s`).join(" | ")} |`,
    `|---:|---|---:|---:|---:|---:|---:|${stages.map(() => "---:").join("|")}|`,
  ];
  for (const r of results) {
    out.push(
      `| ${CORES} | ${r.mode === "watch" ? "watch folder (clipd start)" : "clipd run"} ` +
        `| ${(SECONDS / 60).toFixed(0)} | ${r.wallSeconds.toFixed(1)} | ${(r.wallSeconds / SECONDS).toFixed(3)} ` +
        `| ${r.mode === "watch" ? "—" : r.cpuSeconds.toFixed(1)} | ${r.clips} | ` +
        `${stages.map((s) => (r.steps[s] ?? NaN).toFixed(1)).join(" | ")} |`,
    );
  }
  out.push("");
  const worst = Math.max(...results.map((r) => r.wallSeconds));
  out.push(
    `Target: a ${Math.round(SECONDS / 60)}-minute episode from drop to clips ` +
      `found in under 5 minutes: ${worst < 300 ? "met" : "NOT met"} (slowest ` +
      `${worst.toFixed(1)} s).`,
  );
  out.push("CPU s counts clipd and everything it ran (only for `clipd run`, whose process ends with the run).");
  return out.join("\n");
}

async function main() {
  const started = performance.now();
  const progress = (msg: string) =>
    console.error(`[bench ${((performance.now() - started) / 1000).toFixed(0)}s] ${msg}`);
  progress(`generating the ${SECONDS} s episode (${FORMAT}; cached after the first run)`);
  const { file } = await makeEpisode({ seconds: SECONDS, ext: FORMAT });
  const results: Result[] = [];
  let video: DropResult | undefined;
  for (const mode of MODES) {
    if (mode === "video") {
      progress(`making the ${SECONDS} s 1080p video (cached after the first run), not timed`);
      const videoFile = await makeVideoEpisode(ROOT, SECONDS);
      progress("video: clipd start, drop into the inbox, wait for the top clips rendered");
      video = await dropToRendered(MAIN, ROOT, videoFile);
      progress(`  → ${video.wallSeconds.toFixed(1)} s, ${video.clips} clips`);
      continue;
    }
    progress(mode === "watch" ? "watch folder: clipd start, drop into the inbox" : "clipd run episode");
    const r = mode === "watch" ? await benchWatch(file) : await benchRun(file);
    progress(`  → ${r.wallSeconds.toFixed(1)} s, ${r.clips} clips`);
    results.push(r);
  }
  const lines = results.length
    ? [report(results, file)]
    : [
        `clipd episode benchmark, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ` +
          `${CORES} cores, load average ${os
            .loadavg()
            .map((l) => l.toFixed(2))
            .join(" ")}`,
      ];
  if (video)
    lines.push(
      ...dropReport(video, SECONDS, CORES),
      `Load average at the end: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
  console.log(lines.join("\n"));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
