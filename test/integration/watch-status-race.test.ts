// The watch folder's status files under a race (issue 39): status passes that overlap (a pass
// slower than the one-second tick, on a loaded machine) and a file that moves on while its status
// is written. On a real folder: forty writes of one file's status at once all succeed and leave one
// whole status file and no temp file; writes racing the file's move to the outbox (and its settle's
// removal of the status) never leave a status file behind; and removeStaleStatus clears the temp
// files of both namings.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { FolderLayout } from "../../daemon/watch/layout.js";
import { removeStaleStatus, removeStatus, writeStatus, type WatchStatus } from "../../daemon/watch/status.js";

const status = (percent: number): WatchStatus => ({
  file: "a.wav",
  phase: "processing",
  stage: "transcribe",
  percent,
  note: null,
  eta_seconds: null,
  run_id: "00000000-0000-4000-8000-000000000001",
  updated_at: new Date().toISOString(),
});

describe("watch status files under a race", () => {
  let base = "";
  afterEach(async () => {
    if (base) await rm(base, { recursive: true, force: true });
  });
  async function layout(): Promise<FolderLayout> {
    base = await mkdtemp(path.join(os.tmpdir(), "clipd-status-"));
    const l = { inbox: path.join(base, "inbox"), pipeline: "transcript", ...dirs(base) };
    await Promise.all([l.inbox, l.processing, l.outbox, l.failed].map((d) => mkdir(d, { recursive: true })));
    return l;
  }
  const dirs = (b: string) => ({
    processing: path.join(b, "processing"),
    outbox: path.join(b, "outbox"),
    failed: path.join(b, "failed"),
  });

  it("takes overlapping writes of one status without an error, leaving one whole file", async () => {
    const l = await layout();
    await writeFile(path.join(l.processing, "a.wav"), "x");
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => writeStatus(l, "a.wav", status(i))));
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    const said = JSON.parse(await readFile(path.join(l.processing, "a.wav.status.json"), "utf8"));
    expect(said.file).toBe("a.wav");
    expect((await readdir(l.processing)).sort()).toEqual(["a.wav", "a.wav.status.json"]);
  });

  it("leaves no status behind a file that moved on while it was written", async () => {
    const l = await layout();
    for (let round = 0; round < 20; round++) {
      await writeFile(path.join(l.processing, "a.wav"), "x");
      const writes = Array.from({ length: 8 }, (_, i) => writeStatus(l, "a.wav", status(i)));
      // The settle: the file to the outbox, then its status removed.
      const settle = (async () => {
        await rename(path.join(l.processing, "a.wav"), path.join(l.outbox, `a-${round}.wav`));
        await removeStatus(l, "a.wav");
      })();
      const results = await Promise.allSettled([...writes, settle]);
      expect(results.filter((r) => r.status === "rejected")).toEqual([]);
      expect(await readdir(l.processing), `round ${round}`).toEqual([]);
    }
  });

  it("clears leftover temp files of either naming at a start", async () => {
    const l = await layout();
    await writeFile(path.join(l.processing, "b.wav"), "x");
    for (const n of [
      ".b.wav.status.json.tmp",
      ".b.wav.status.json.123-4.tmp",
      "gone.wav.status.json",
      "b.wav.status.json",
    ])
      await writeFile(path.join(l.processing, n), "{");
    await removeStaleStatus(l);
    expect((await readdir(l.processing)).sort()).toEqual(["b.wav", "b.wav.status.json"]);
    expect(existsSync(path.join(l.processing, "gone.wav.status.json"))).toBe(false);
  });
});
