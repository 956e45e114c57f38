// A machine without the OS tools: real clipd processes run with a PATH that lacks them. A step that
// needs a missing program fails with tool_missing and the apt command (never stage_crashed with
// "spawn ffprobe ENOENT"), /healthz answers 200 "degraded" naming what is missing, and npm start's
// package check (scripts/os-packages.mjs) installs or prints the fix, then lets start go on.
import { execFileSync, spawnSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { repoRoot, runClipd, spawnClipd, until, type Spawned } from "../helpers/cli.js";
import { daemonEnv } from "../helpers/daemon-config.js";
import { fixtureMedia } from "../helpers/media.js";

/** A PATH folder holding only the named programs (linked to the real ones). */
async function pathWith(programs: string[]): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-path-"));
  for (const p of programs)
    await symlink(
      execFileSync("sh", ["-c", `command -v ${p}`])
        .toString()
        .trim(),
      path.join(dir, p),
    );
  return dir;
}

/** The environment of a clipd process on a machine without ffmpeg, ffprobe or pocketsphinx. */
async function bareEnv(extra: Record<string, string> = {}) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "clipd-bare-"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: await pathWith([]),
    CLIPD_DATA_DIR: dataDir,
    DATABASE_URL: "",
    CLIPD_CONFIG: "",
    ...extra,
  };
  delete env.CLIPD_FFMPEG;
  delete env.CLIPD_FFPROBE;
  return { env, dataDir };
}

/** `clipd stage <name>` on jfk.wav in storage; returns the error it prints. */
async function stageError(
  env: NodeJS.ProcessEnv,
  dataDir: string,
  stage: string,
  input: Record<string, unknown> = {},
  set: string[] = [],
) {
  await mkdir(path.join(dataDir, "storage", "in"), { recursive: true });
  await copyFile(fixtureMedia("jfk.wav"), path.join(dataDir, "storage", "in", "jfk.wav"));
  const file = path.join(dataDir, "input.json");
  await writeFile(file, JSON.stringify({ source: { key: "in/jfk.wav", name: "jfk.wav" }, ...input }));
  const r = await runClipd(["stage", stage, "--input", file, ...set.flatMap((s) => ["--set", s])], env);
  expect(r.code, r.output).toBe(1);
  return JSON.parse(r.output).error as { code: string; message: string; tool: string; fix: string };
}

describe("without the OS tools", () => {
  const procs: Spawned[] = [];
  afterEach(() => procs.forEach((p) => p.kill("SIGKILL")));

  it("a stage fails with tool_missing naming the program and the apt command that installs it", async () => {
    const { env, dataDir } = await bareEnv();
    const probe = await stageError(env, dataDir, "probe");
    expect(probe).toMatchObject({
      code: "tool_missing",
      tool: "ffprobe",
      fix: "apt-get update && apt-get install -y ffmpeg",
    });
    expect(probe.message).toMatch(/^ffprobe is not installed .*fix: apt-get update && apt-get install -y ffmpeg/);

    // ffmpeg is there, pocketsphinx is not: the decode runs, the recogniser is named.
    const withFfmpeg = { ...env, PATH: await pathWith(["ffmpeg", "ffprobe"]) };
    const sphinx = await stageError(withFfmpeg, dataDir, "transcribe", { media: { duration: 11, has_audio: true } }, [
      "engine=pocketsphinx",
    ]);
    expect(sphinx).toMatchObject({
      code: "tool_missing",
      tool: "pocketsphinx_continuous",
      fix: "apt-get update && apt-get install -y pocketsphinx",
    });
  });

  it("a pipeline run fails at once with tool_missing, not stage_crashed", async () => {
    const { env, dataDir } = await bareEnv();
    const r = await runClipd(["run", "probe", fixtureMedia("jfk.wav"), "--out", path.join(dataDir, "out")], env);
    expect(r.code).toBe(1);
    expect(r.output).toMatch(
      /failed: tool_missing: ffprobe is not installed .*apt-get install -y ffmpeg.* \(stage probe\)/,
    );
    expect(r.output).not.toMatch(/stage_crashed|ENOENT/);
  });

  it("npm start's package check installs with apt as root, else prints the one command, and carries on", async () => {
    const bin = await pathWith(["node"]);
    const check = (env: Record<string, string>) => {
      const r = spawnSync(process.execPath, [path.join(repoRoot, "scripts", "os-packages.mjs")], {
        env: { ...process.env, PATH: bin, ...env },
        encoding: "utf8",
      });
      expect(r.status).toBe(0);
      return r.stdout + r.stderr;
    };
    const cmd = "apt-get update && apt-get install -y ffmpeg pocketsphinx pocketsphinx-en-us fonts-dejavu-core";
    expect(check({ CLIPD_NO_APT: "1" })).toContain(
      `missing ffmpeg, ffprobe, pocketsphinx. Install with:\n  sudo sh -c '${cmd}'`,
    );
    if (process.getuid?.() !== 0) return;
    // As root with apt-get on PATH (a stand-in that only echoes), it says what it installs and runs it.
    await writeFile(path.join(bin, "apt-get"), '#!/bin/sh\necho "apt-get ran: $*"\n', { mode: 0o755 });
    const out = check({ CLIPD_NO_APT: "" });
    expect(out).toContain(`clipd: installing missing OS packages (ffmpeg, ffprobe, pocketsphinx missing): ${cmd}`);
    expect(out).toContain("apt-get ran: install -y ffmpeg pocketsphinx pocketsphinx-en-us fonts-dejavu-core");
  });

  it("/healthz answers 200 degraded and names the missing tools", async () => {
    const d = await daemonEnv("pglite", {}, { PATH: await pathWith([]) });
    const daemon = spawnClipd(["start"], d.env);
    procs.push(daemon);
    const [, url] = await daemon.waitFor(/is up: (http\S+)\/healthz/, 90_000);
    // Wait for the worker's first heartbeat, so the tools are what keeps the status from "ok".
    const body = await until(
      async () => {
        const res = await fetch(`${url}/healthz`);
        expect(res.status).toBe(200);
        const b = await res.json();
        return b.workers.ok ? b : undefined;
      },
      { what: "a live worker" },
    );
    expect(body.status).toBe("degraded");
    expect(body.tools).toMatchObject({
      ok: false,
      missing: expect.arrayContaining(["ffmpeg", "ffprobe", "pocketsphinx"]),
    });
    expect(body.tools.fix).toMatch(/^apt-get update && apt-get install -y ffmpeg pocketsphinx/);
    daemon.kill("SIGTERM");
    expect(await daemon.exited).toBe(0);
  });
});
