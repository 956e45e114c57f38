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
 *
 * The chunks of a resumable upload collect in a `<key>.part` folder (daemon/storage/storage-parts.ts)
 * that must outlive a pause of the page, so it goes only once its link has expired: the expiry
 * noted with the first chunk, or, without a note (a writer killed before it), the folder's last
 * change plus the 2 hours a link lives, after which no link that wrote there can still be valid.
 */
import { readdir, readFile, readlink, realpath, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import type { LocalStorage, Storage } from "../daemon/storage/storage.js";
import { UPLOAD_TTL_SECONDS } from "./signing.js";

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

/** Removes the stale .part files and expired chunk folders under `<root>/uploads`; returns their paths. */
export async function sweepPartialUploads(
  root: string,
  opts: { staleMs?: number; now?: number } = {},
): Promise<string[]> {
  const dir = path.join(root, "uploads");
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return [];
    throw err;
  });
  const named = entries
    .filter((e) => e.name.endsWith(".part"))
    .map((e) => ({ file: path.join(e.parentPath, e.name), folder: e.isDirectory() }));
  if (!named.length) return [];
  const open = await openFiles();
  const now = opts.now ?? Date.now();
  const cutoff = now - (opts.staleMs ?? PART_STALE_MS);
  const removed: string[] = [];
  for (const { file, folder } of named) {
    const st = await stat(file).catch(() => undefined);
    if (!st) continue;
    if (folder) {
      if (!(await chunksExpired(file, st.mtimeMs, now)) || (await holdsOpen(file, open))) continue;
      await rm(file, { recursive: true, force: true });
    } else {
      if (st.mtimeMs > cutoff || open.has(await realpath(file).catch(() => file))) continue;
      await rm(file, { force: true });
    }
    removed.push(file);
  }
  return removed;
}

/** Whether a chunk folder's link has expired (its note's expires_at, else its last change + a link's life). */
async function chunksExpired(folder: string, mtimeMs: number, now: number): Promise<boolean> {
  const note = await readFile(path.join(folder, "note"), "utf8").catch(() => undefined);
  const noted = note ? Date.parse(JSON.parse(note).expires_at ?? "") : NaN;
  return (Number.isFinite(noted) ? noted : mtimeMs + UPLOAD_TTL_SECONDS * 1000) <= now;
}

/** Whether this process holds a file in the folder open (a chunk still being written). */
async function holdsOpen(folder: string, open: Set<string>): Promise<boolean> {
  const real = await realpath(folder).catch(() => folder);
  for (const f of open) if (f.startsWith(`${real}/`)) return true;
  return false;
}

/** Sweeps now and every SWEEP_EVERY_MS; a storage that is not a local folder has nothing to sweep. */
export function startUploadSweeper(storage: Storage, log: Logger): { stop(): void } {
  const root = (storage as Partial<LocalStorage>).root;
  if (!root) return { stop() {} };
  const sweep = () =>
    void sweepPartialUploads(root).then(
      (removed) =>
        removed.length &&
        log.info({ removed: removed.map((f) => path.relative(root, f)) }, "removed stale partial uploads"),
      (err) => log.warn({ err }, "could not sweep partial uploads"),
    );
  sweep();
  const timer = setInterval(sweep, SWEEP_EVERY_MS);
  timer.unref(); // housekeeping never keeps the process alive
  return { stop: () => clearInterval(timer) };
}
