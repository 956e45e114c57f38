// The watch folder's status file (issue 17): while a file is in processing/, <name>.status.json
// beside it says its stage and percent; it is gone once the file has moved on, and a status file
// left over from a crash neither becomes work nor survives a start. The transcriber is the real
// pocketsphinx held behind a gate, so the test sees the file surely in mid-transcription.
import { existsSync } from "node:fs";
import { copyFile, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnClipd, until, type Spawned } from "../helpers/cli.js";
import { daemonEnv } from "../helpers/daemon-config.js";
import { gatedPocketsphinx, type GatedPocketsphinx } from "../helpers/gated-pocketsphinx.js";
import { fixtureMedia } from "../helpers/media.js";

describe("watch folder status files", () => {
  const procs: Spawned[] = [];
  let gate: GatedPocketsphinx | undefined;
  afterEach(async () => {
    procs.forEach((p) => p.kill("SIGKILL"));
    await gate?.cleanup();
  });

  it("shows stage and percent beside a file in processing/, removes it after, and ignores a leftover one", async () => {
    gate = await gatedPocketsphinx();
    const d = await daemonEnv("pglite", {
      watch: { enabled: true, stable_ms: 500, folders: [{ path: "inbox", pipeline: "transcript" }] },
      transcribe: { engine: "pocketsphinx" },
      pocketsphinx: { command: gate.command },
    });
    const inbox = path.join(d.dataDir, "inbox");
    const processing = path.join(d.dataDir, "processing");
    const outbox = path.join(d.dataDir, "outbox");
    // Left by a crash: a status file whose file has gone, and a half-written temp file.
    await mkdir(processing, { recursive: true });
    await writeFile(path.join(processing, "gone.wav.status.json"), "{}\n");
    await writeFile(path.join(processing, ".gone.wav.status.json.tmp"), "{");
    await mkdir(inbox, { recursive: true });
    await copyFile(fixtureMedia("jfk.wav"), path.join(inbox, "jfk.wav"));

    const daemon = spawnClipd(["start"], d.env);
    procs.push(daemon);
    await daemon.waitFor(/is up: /, 90_000);
    const statusFile = path.join(processing, "jfk.wav.status.json");
    const status = await until(
      async () => {
        const s = JSON.parse(await readFile(statusFile, "utf8"));
        return s.stage === "transcribe" ? s : undefined;
      },
      { what: "a status file saying transcribe", timeoutMs: 120_000, intervalMs: 100 },
    );
    expect(status).toMatchObject({
      file: "jfk.wav",
      phase: "processing",
      stage: "transcribe",
      run_id: expect.any(String),
    });
    expect(status.percent).toBeGreaterThan(0);
    expect(status.percent).toBeLessThan(100);
    expect(status).toHaveProperty("eta_seconds");
    expect(Date.parse(status.updated_at)).not.toBeNaN();
    // The leftovers went at start and never became work.
    expect(existsSync(path.join(processing, "gone.wav.status.json"))).toBe(false);
    expect(existsSync(path.join(processing, ".gone.wav.status.json.tmp"))).toBe(false);

    await gate.open();
    await until(() => existsSync(path.join(outbox, "jfk", "run.json")), {
      what: "jfk results",
      timeoutMs: 150_000,
      intervalMs: 250,
    });
    expect(JSON.parse(await readFile(path.join(outbox, "jfk", "run.json"), "utf8")).state).toBe("succeeded");
    // The sweep that moved the file removes its status file right after the move.
    await until(async () => (await readdir(processing)).length === 0, {
      what: "processing/ to be empty",
      timeoutMs: 30_000,
    });
    expect(existsSync(path.join(d.dataDir, "failed", "gone.wav.status.json.error.txt"))).toBe(false);
  });
});
