/**
 * Sweeps partial uploads. A PUT to an upload address writes `<key>.<8 hex>.part` and renames it to
 * its key once whole (facade/operations/files.ts); a process killed mid-upload leaves the .part
 * behind, and nothing else would ever remove it (a 20 MB one stayed after a restart and a good
 * re-upload). The server role sweeps at start and every 15 minutes.
 *
 * A .part file under uploads/ is stale, and removed, when both hold:
 * - no request in this process is writing it: a live upload holds its file open, and the open
 *   files are read from /proc/self/fd (where there is no /proc, the age alone decides);
 * - it has not been written for PART_STALE_MS (1 hour): a writer in another process touches it
 *   with every chunk, so only an abandoned file gets that old.
 */
import { readdir, readlink, realpath, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import type { LocalStorage, Storage } from "../daemon/kit/storage.js";

export const PART_STALE_MS = 60 * 60_000;
export const SWEEP_EVERY_MS = 15 * 60_000;

/** Paths this process has open, or an empty set where /proc is not there. */
async function openFiles(): Promise<Set<string>> {
  const open = new Set<string>();
  const fds = await readdir("/proc/self/fd").catch(() => [] as string[]);
  for (const fd of fds) {
    const target = await readlink(path.join("/proc/self/fd", fd)).catch(() => undefined);
    if (target) open.add(target);
  }
  return open;
}

/** Removes the stale .part files under `<root>/uploads`; returns their paths. */
export async function sweepPartialUploads(root: string, opts: { staleMs?: number; now?: number } = {}): Promise<string[]> {
  const dir = path.join(root, "uploads");
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return [];
    throw err;
  });
  const parts = entries.filter((e) => e.isFile() && e.name.endsWith(".part")).map((e) => path.join(e.parentPath, e.name));
  if (!parts.length) return [];
  const open = await openFiles();
  const cutoff = (opts.now ?? Date.now()) - (opts.staleMs ?? PART_STALE_MS);
  const removed: string[] = [];
  for (const file of parts) {
    const st = await stat(file).catch(() => undefined);
    if (!st || st.mtimeMs > cutoff || open.has(await realpath(file).catch(() => file))) continue;
    await rm(file, { force: true });
    removed.push(file);
  }
  return removed;
}

/** Sweeps now and every SWEEP_EVERY_MS; a storage that is not a local folder has nothing to sweep. */
export function startUploadSweeper(storage: Storage, log: Logger): { stop(): void } {
  const root = (storage as Partial<LocalStorage>).root;
  if (!root) return { stop() {} };
  const sweep = () =>
    void sweepPartialUploads(root).then(
      (removed) => removed.length && log.info({ removed: removed.map((f) => path.relative(root, f)) }, "removed stale partial uploads"),
      (err) => log.warn({ err }, "could not sweep partial uploads"),
    );
  sweep();
  const timer = setInterval(sweep, SWEEP_EVERY_MS);
  timer.unref(); // housekeeping never keeps the process alive
  return { stop: () => clearInterval(timer) };
}
