// The watch folder, driven as a batch user would: files in data/inbox, results in data/outbox.
import { existsSync } from "node:fs";
import { copyFile, open, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { testBackends } from "../helpers/backends.js";
import { spawnClipd, until, type Spawned } from "../helpers/cli.js";
import { daemonEnv } from "../helpers/daemon-config.js";
import { fixtureMedia } from "../helpers/media.js";

describe.each(testBackends())("watch folder on %s", (backend) => {
  const procs: Spawned[] = [];
  afterEach(() => procs.forEach((p) => p.kill("SIGKILL")));

  it("processes dropped files into outbox/ and failed/, picks up files dropped " +
    "while down, honours sidecars (render options reach the clips)", async () => {
    const d = await daemonEnv(backend, {
      watch: { enabled: true, stable_ms: 1000, folders: [{ path: "inbox", pipeline: "episode" }] },
      render: { render_top: 1 },
    });
    const inbox = path.join(d.dataDir, "inbox");
    const outbox = path.join(d.dataDir, "outbox");
    const failed = path.join(d.dataDir, "failed");
    // Dropped before the daemon starts: must be picked up at start.
    await (await import("node:fs/promises")).mkdir(inbox, { recursive: true });
    await copyFile(fixtureMedia("jfk.wav"), path.join(inbox, "jfk.wav"));
    // Render options go to the clip renders; width and preset keep the render cheap. loudness is a
    // level for the renders (a number), though find-clips takes a boolean of the same name.
    await writeFile(
      path.join(inbox, "jfk.yaml"),
      "style: karaoke\ncaption_size: large\nfit: whole\naspect_ratio: 1:1\nwidth: 360\npreset: ultrafast\n" +
        "loudness: -16\n",
    );
    await writeFile(path.join(inbox, "notes.txt"), "not media\n");
    await copyFile(fixtureMedia("jfk.mp3"), path.join(inbox, "speech.mp3"));
    await writeFile(path.join(inbox, "speech.yaml"), "render_top: 0\n");
    await copyFile(fixtureMedia("jfk.mp3"), path.join(inbox, "badopts.mp3"));
    await writeFile(path.join(inbox, "badopts.mp3.yaml"), "target_seconds: 5000\n");
    await copyFile(fixtureMedia("jfk.mp3"), path.join(inbox, "badyaml.mp3"));
    await writeFile(path.join(inbox, "badyaml.yaml"), "style: [karaoke\n");
    await copyFile(fixtureMedia("jfk.mp3"), path.join(inbox, "badfit.mp3"));
    await writeFile(path.join(inbox, "badfit.yaml"), "fit: stretch\n");

    const daemon = spawnClipd(["start"], d.env);
    procs.push(daemon);
    await daemon.waitFor(/is up: /, 90_000);

    // A file written slowly is taken only once it has stopped growing.
    const slow = path.join(inbox, "slow.wav");
    const wav = await readFile(fixtureMedia("jfk.wav"));
    const fh = await open(slow, "w");
    await fh.write(wav.subarray(0, 1000));
    for (let off = 1000; off < wav.length; off += 64_000) {
      await new Promise((r) => setTimeout(r, 300));
      await fh.write(wav.subarray(off, Math.min(wav.length, off + 64_000)));
    }
    await fh.close();

    await until(() => existsSync(path.join(outbox, "jfk", "run.json")), {
      what: "jfk results",
      timeoutMs: 150_000,
      intervalMs: 250,
    });
    const run = JSON.parse(await readFile(path.join(outbox, "jfk", "run.json"), "utf8"));
    expect(run.state).toBe("succeeded");
    expect(run.output.media.duration).toBeGreaterThan(10.9);
    expect(run.output.media.duration).toBeLessThan(11.1);
    const files = await readdir(path.join(outbox, "jfk"));
    expect(files).toEqual(
      expect.arrayContaining([
        "transcript.txt",
        "transcript.srt",
        "transcript.vtt",
        "clips.json",
        "run.json",
        "jfk.wav",
      ]),
    );
    expect(files.some((f) => /^clip-01-.*\.mp4$/.test(f))).toBe(true);
    expect(run.events.map((e: { type: string }) => e.type)).toEqual(["episode.ready", "clip.ready"]);
    expect(run.clips_rendered).toEqual([
      expect.objectContaining({
        state: "succeeded",
        look: expect.objectContaining({
          style: "karaoke",
          caption_size: "large",
          fit: "whole",
          aspect_ratio: "1:1",
          loudness: -16,
        }),
      }),
    ]);

    await until(() => existsSync(path.join(failed, "notes.txt.error.txt")), {
      what: "notes.txt to fail",
      timeoutMs: 60_000,
    });
    expect(await readFile(path.join(failed, "notes.txt.error.txt"), "utf8")).toMatch(/code: unsupported_type/);
    expect(existsSync(path.join(failed, "notes.txt"))).toBe(true);

    // A refused sidecar fails its file at once; both stay in failed/ beside the reason.
    for (const [name, reason] of [
      ["badopts.mp3", /target_seconds/],
      ["badyaml.mp3", /Flow sequence|flow collection|YAML|Unexpected/i],
      ["badfit.mp3", /"fit"/],
    ] as const) {
      await until(() => existsSync(path.join(failed, `${name}.error.txt`)), {
        what: `${name} to fail`,
        timeoutMs: 60_000,
      });
      const text = await readFile(path.join(failed, `${name}.error.txt`), "utf8");
      expect(text).toMatch(/code: invalid_options/);
      expect(text).toMatch(reason);
      expect(text).toContain(`sidecar: ${name}.yaml`);
      expect(existsSync(path.join(failed, name))).toBe(true);
      expect(existsSync(path.join(failed, `${name}.yaml`))).toBe(true);
    }

    await until(() => existsSync(path.join(outbox, "speech", "run.json")), {
      what: "speech results",
      timeoutMs: 150_000,
      intervalMs: 250,
    });
    const speech = await readdir(path.join(outbox, "speech"));
    // render_top: 0 from the sidecar
    expect(speech.some((f) => f.endsWith(".mp4") && f.startsWith("clip-"))).toBe(false);

    await until(() => existsSync(path.join(outbox, "slow", "run.json")), {
      what: "slow results",
      timeoutMs: 150_000,
      intervalMs: 250,
    });
    const slowRun = JSON.parse(await readFile(path.join(outbox, "slow", "run.json"), "utf8"));
    expect(slowRun.state).toBe("succeeded");
    expect(slowRun.output.media.duration).toBeGreaterThan(10.9);

    // Nothing left behind, nothing processed twice.
    expect((await readdir(inbox)).filter((f) => !f.startsWith("."))).toEqual([]);
    expect(await readdir(path.join(d.dataDir, "processing"))).toEqual([]);
    expect((await readdir(outbox)).sort()).toEqual(["jfk", "slow", "speech"]);
    daemon.kill("SIGTERM");
    expect(await daemon.exited).toBe(0);
  }, 400_000);
});
