// The watch folder repeats no work across crashes: the daemon is killed (CLIPD_FAULTS) after the
// clip renders are started and before the row records them, while the outbox folder is being
// written, and after it is in place but before the file is marked done. After each restart the
// work goes on from where it was: one run and one clip.ready per clip, one outbox folder, no
// temporary folder left.
import { copyFile, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDb } from "../../daemon/store/db.js";
import { testBackends } from "../helpers/backends.js";
import { spawnClipd, until, type Spawned } from "../helpers/cli.js";
import { daemonEnv } from "../helpers/daemon-config.js";
import { fixtureMedia } from "../helpers/media.js";

describe.each(testBackends())("watch folder across crashes on %s", (backend) => {
  const procs: Spawned[] = [];
  afterEach(() => procs.forEach((p) => p.kill("SIGKILL")));

  it("renders each clip once and writes one outbox folder after kills at each crash point", async () => {
    const d = await daemonEnv(backend, {
      watch: { enabled: true, stable_ms: 500, folders: [{ path: "inbox", pipeline: "episode" }] },
      render: { render_top: 1 },
    });
    const inbox = path.join(d.dataDir, "inbox");
    const outbox = path.join(d.dataDir, "outbox");
    await mkdir(inbox, { recursive: true });
    await copyFile(fixtureMedia("jfk.wav"), path.join(inbox, "jfk.wav"));
    await writeFile(path.join(inbox, "jfk.yaml"), "width: 360\npreset: ultrafast\n");

    /** Starts the daemon with one crash point and waits for it to kill itself there. */
    const crashAt = async (point: string) => {
      const p = spawnClipd(["start"], { ...d.env, CLIPD_FAULTS: point });
      procs.push(p);
      let ended = false;
      void p.exited.then(() => (ended = true));
      await until(() => ended, { what: `the daemon to reach ${point}`, timeoutMs: 240_000, intervalMs: 250 });
      expect(p.child.signalCode, p.output().slice(-2000)).toBe("SIGKILL");
    };
    await crashAt("watch:renders-started");
    await crashAt("watch:outbox-partial");
    // the crash left a temporary folder
    expect((await readdir(outbox)).filter((f) => f.startsWith(".jfk.tmp-"))).toHaveLength(1);
    await crashAt("watch:outbox-written");

    const last = spawnClipd(["start"], d.env);
    procs.push(last);
    await last.waitFor(/results written/, 120_000);
    last.kill("SIGTERM");
    expect(await last.exited).toBe(0);

    expect(await readdir(outbox)).toEqual(["jfk"]);
    expect(await readdir(path.join(d.dataDir, "processing"))).toEqual([]);
    const files = await readdir(path.join(outbox, "jfk"));
    expect(files).toEqual(expect.arrayContaining(["jfk.wav", "run.json", "clips.json"]));
    const summary = JSON.parse(await readFile(path.join(outbox, "jfk", "run.json"), "utf8"));
    expect(summary.clips_rendered).toHaveLength(1);

    const db = await openDb({ databaseUrl: d.databaseUrl, dataDir: d.dataDir });
    try {
      const { rows: clips } = await db.query(
        `select id, state, input->'clip'->>'number' as number from runs where pipeline = 'clip'`,
      );
      expect(clips).toEqual([expect.objectContaining({ id: summary.clips_rendered[0].run_id, state: "succeeded" })]);
      const { rows: ready } = await db.query(`select run_id from events where type = 'clip.ready'`);
      expect(ready.map((r: any) => r.run_id)).toEqual([clips[0].id]);
      const { rows: watch } = await db.query(`select state, outbox from watch_files`);
      expect(watch).toEqual([{ state: "done", outbox: "jfk" }]);
    } finally {
      await db.close();
    }
  }, 600_000);
});
