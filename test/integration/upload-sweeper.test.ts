// Partial uploads left by a crash are swept: a stale .part file goes, a fresh one (an upload that
// may still be coming) and one this process has open stay, and the server role sweeps at start.
import { existsSync } from "node:fs";
import { mkdir, open, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { LocalStorage } from "../../daemon/storage/storage.js";
import { startRoles } from "../../daemon/boot/roles.js";
import { PART_STALE_MS, sweepPartialUploads } from "../../facade/upload-sweeper.js";
import { openTestApp, type TestApp } from "../helpers/app.js";
import { waitFor } from "../helpers/wait.js";

describe("partial upload sweeper", () => {
  let t: TestApp | undefined;
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await (stop ?? t?.close)?.();
    t = stop = undefined;
  });

  /** A .part file under uploads/ last written `ageMs` ago. */
  async function part(root: string, name: string, ageMs: number): Promise<string> {
    const file = path.join(root, "uploads", "acct", "ep", name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, Buffer.alloc(1024));
    const at = new Date(Date.now() - ageMs);
    await utimes(file, at, at);
    return file;
  }

  it("removes stale .part files only: not fresh ones, not finished uploads, not one a request holds open", async () => {
    t = await openTestApp("pglite", { roles: [] });
    const root = (t.app.storage as LocalStorage).root;
    const stale = await part(root, "talk.wav.0a1b2c3d.part", PART_STALE_MS + 60_000);
    const fresh = await part(root, "talk.wav.4e5f6a7b.part", 60_000);
    const done = await part(root, "talk.wav", PART_STALE_MS * 5);
    const held = await part(root, "other.wav.8c9d0e1f.part", PART_STALE_MS * 2);
    const fh = await open(held, "a");
    try {
      expect(await sweepPartialUploads(root)).toEqual([stale]);
      expect(existsSync(stale)).toBe(false);
      expect([fresh, done, held].map(existsSync)).toEqual([true, true, true]);
    } finally {
      await fh.close();
    }
    expect(await sweepPartialUploads(root)).toEqual([held]); // closed: no live request writes it
  });

  it("sweeps at the start of the server role", async () => {
    t = await openTestApp("pglite", { roles: [] });
    const root = (t.app.storage as LocalStorage).root;
    const stale = await part(root, "talk.wav.0a1b2c3d.part", PART_STALE_MS + 60_000);
    const fresh = await part(root, "talk.wav.4e5f6a7b.part", 0);
    const roles = await startRoles(t.app, ["serve"]);
    stop = () => roles.stop("test done");
    await waitFor(() => !existsSync(stale), { what: "the stale .part file to be swept", timeoutMs: 30_000 });
    expect(existsSync(fresh)).toBe(true);
  });
});
