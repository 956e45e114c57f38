/**
 * Media storage: files addressed by keys ("runs/<id>/source.wav"). Keys are relative, use forward
 * slashes and may not climb out of the store (checkKey). Stages and operations reach the bytes only
 * through this interface (streams, stat, local copies), never through a folder of their own, so an
 * object store can implement it later without touching them. The local-disk backend is the only
 * one today; its folder layout stays private to it.
 */
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { copyFile, mkdir, open, rename, rm, stat, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { diskFullOr, isDiskFull } from "./disk-full.js";
import { defineLocalParts, type PartStore } from "./storage-parts.js";

/**
 * A temporary name beside `to`, its own per writer: two writers of one key (two first reads of a
 * test-mode sample) each rename a whole file into place, and the last one wins, whole.
 */
const tempName = (to: string) => `${to}.${randomBytes(6).toString("hex")}.part`;

/** What stat knows about a stored file. */
export interface StorageStat {
  size: number;
  mtime: Date;
}

/** A byte range, both ends inclusive (as in HTTP Range and fs.createReadStream). */
export interface ByteRange {
  start: number;
  end: number;
}

/** A stored file seen as a local path, for tools that only take paths (ffmpeg, sharp). */
export interface LocalFile {
  readonly path: string;
  /** Gives the path up early; a copying backend deletes its copy. Safe to call twice. */
  release(): Promise<void>;
}

/** The key names no stored file (or names a folder, which a store of objects does not have). */
export class StorageNotFoundError extends Error {
  readonly code = "storage_not_found";
  constructor(
    readonly key: string,
    options?: { cause?: unknown },
  ) {
    super(`storage key "${key}" does not exist`, options);
    this.name = "StorageNotFoundError";
  }
}

export interface Storage {
  /** Whether a file is stored under the key. */
  exists(key: string): Promise<boolean>;
  /** Size and modification time; rejects with StorageNotFoundError when there is no such file. */
  stat(key: string): Promise<StorageStat>;
  size(key: string): Promise<number>;
  /** Stores a local file (a tool's output in the step's workdir); `move: true` consumes it. */
  putFile(key: string, from: string, opts?: { move?: boolean }): Promise<string>;
  /** Renames a stored file (e.g. a finished `.part` upload to its key), replacing any file there. */
  move(from: string, to: string): Promise<string>;
  write(key: string, data: string | Buffer): Promise<string>;
  read(key: string): Promise<Buffer>;
  /** The first `bytes` bytes of a file (fewer when it is shorter), to tell its type. */
  readHead(key: string, bytes: number): Promise<Buffer>;
  /** The file's bytes, or only `range` of them. A missing key fails the stream, not the call. */
  readStream(key: string, range?: ByteRange): Readable;
  /** Writes the key as bytes arrive; write to a temporary key and `move` it when whole. */
  writeStream(key: string): Promise<Writable>;
  /**
   * The file as a local path, for a tool that needs one. The path is read-only: write outputs to
   * the workdir and `putFile` them. It stays valid until `release()` or the end of the step, when
   * the runner removes `opts.workdir`. The local-disk backend answers the stored file's own path
   * and copies nothing; a remote backend downloads into a private folder under `opts.workdir`,
   * so names the stage uses there do not clash. Rejects with StorageNotFoundError for a missing key.
   */
  local(key: string, opts: { workdir: string; signal?: AbortSignal }): Promise<LocalFile>;
  /** Removes a file (or everything under a key prefix); a missing key is not an error. */
  remove(key: string): Promise<void>;
  /** Files collected in parts, each placed whole at its offset (chunked uploads; storage-parts.ts). */
  readonly parts: PartStore;
  /**
   * Object stores only: a URL that fetches the file straight from the store for `seconds`, answered
   * with these Content-Type and Content-Disposition headers (HTTP Range works on it). Absent on disk.
   */
  presignGet?(key: string, opts: { seconds: number; type: string; disposition: string }): Promise<string>;
  /** Object stores only: a URL that takes one PUT of the file, with this Content-Type, for `seconds`. */
  presignPut?(key: string, opts: { seconds: number; type: string }): Promise<string>;
}

/**
 * A stored file as a local path for a step's tool (Storage.local with the step's workdir). Stages
 * need not release it: the path lives as long as the step's workdir, which the runner removes.
 */
export async function stepFile(
  ctx: { storage: Storage; workdir: string; signal?: AbortSignal },
  key: string,
): Promise<string> {
  return (await ctx.storage.local(key, { workdir: ctx.workdir, ...(ctx.signal ? { signal: ctx.signal } : {}) })).path;
}

/** The canonical form of a key; throws for keys that are empty, absolute or climb out of the store. */
export function checkKey(key: string): string {
  const clean = key.replace(/\\/g, "/");
  if (
    !clean ||
    clean.startsWith("/") ||
    clean.includes("\0") ||
    clean.split("/").some((p) => p === ".." || p === "." || p === "")
  ) {
    throw new Error(`invalid storage key "${key}"`);
  }
  return clean;
}

/** Storage in one local folder; `root` is exposed for the daemon's own housekeeping and tests. */
export type LocalStorage = Storage & { readonly root: string };

export function defineLocalStorage(root: string): LocalStorage {
  const abs = path.resolve(root);
  // Private: the one place a key becomes a path. The relative check guards against anything
  // checkKey might let through on another platform.
  const pathOf = (key: string) => {
    const full = path.join(abs, checkKey(key));
    const rel = path.relative(abs, full);
    if (!rel || rel === ".." || rel.startsWith("../") || path.isAbsolute(rel))
      throw new Error(`invalid storage key "${key}"`);
    return full;
  };
  const ensureDir = (key: string) =>
    mkdir(path.dirname(pathOf(key)), { recursive: true }).catch((err) => Promise.reject(diskFullOr(err, key)));
  // A write the disk could not hold leaves no half file behind, and says so as InsufficientStorage.
  const full = (p: Promise<void>, partial: string, key: string) =>
    p.catch(async (err) => {
      if (isDiskFull(err)) await rm(partial, { force: true });
      throw diskFullOr(err, key);
    });
  const fileStat = async (key: string): Promise<StorageStat> => {
    const file = pathOf(key);
    try {
      const st = await stat(file);
      if (st.isFile()) return { size: st.size, mtime: st.mtime };
    } catch (caught) {
      const err = caught as NodeJS.ErrnoException;
      if (err?.code === "ENOENT" || err?.code === "ENOTDIR") throw new StorageNotFoundError(key, { cause: err });
      throw err;
    }
    throw new StorageNotFoundError(key);
  };
  const storage: LocalStorage = {
    root: abs,
    async exists(key) {
      try {
        await fileStat(key);
        return true;
      } catch (err) {
        if (err instanceof StorageNotFoundError) return false;
        throw err;
      }
    },
    stat: fileStat,
    size: async (key) => (await fileStat(key)).size,
    async putFile(key, from, opts = {}) {
      await ensureDir(key);
      const to = pathOf(key);
      if (opts.move) {
        try {
          await rename(from, to);
          return key;
        } catch (caught) {
          const err = caught as NodeJS.ErrnoException;
          if (err?.code !== "EXDEV") throw err;
        }
      }
      // Copy to a temporary name first so a reader never sees half a file.
      const part = tempName(to);
      await full(copyFile(from, part), part, key);
      await rename(part, to);
      if (opts.move) await rm(from, { force: true });
      return key;
    },
    async move(from, to) {
      await ensureDir(to);
      try {
        await rename(pathOf(from), pathOf(to));
      } catch (caught) {
        const err = caught as NodeJS.ErrnoException;
        if (err?.code === "ENOENT") throw new StorageNotFoundError(from, { cause: err });
        throw err;
      }
      return to;
    },
    async write(key, data) {
      await ensureDir(key);
      const to = pathOf(key);
      const part = tempName(to);
      await full(writeFile(part, data), part, key);
      await rename(part, to);
      return key;
    },
    read: async (key) => readFile(pathOf(key)),
    async readHead(key, bytes) {
      const fh = await open(pathOf(key), "r");
      try {
        const buf = Buffer.alloc(bytes);
        const { bytesRead } = await fh.read(buf, 0, bytes, 0);
        return buf.subarray(0, bytesRead);
      } finally {
        await fh.close();
      }
    },
    readStream: (key, range) => createReadStream(pathOf(key), range ? { start: range.start, end: range.end } : {}),
    async writeStream(key) {
      await ensureDir(key);
      return createWriteStream(pathOf(key));
    },
    async local(key) {
      await fileStat(key);
      return { path: pathOf(key), release: async () => undefined };
    },
    async remove(key) {
      await rm(pathOf(key), { force: true, recursive: true });
    },
    parts: defineLocalParts(pathOf),
  };
  return storage;
}

/**
 * Closes a write stream whose file is being given up (the caller removes the file next). It ends
 * the stream rather than destroying it: destroying while a write is still in the thread pool makes
 * Node fail that write with ERR_STREAM_DESTROYED and emit it as an 'error' event, which crashes
 * the process when nobody listens and skips 'close'. Resolves once the file is closed.
 */
export function abandonStream(out: Writable): Promise<void> {
  out.on("error", () => undefined); // the file is being discarded; a late write error changes nothing
  if (out.closed) return Promise.resolve();
  return new Promise((resolve) => {
    out.once("close", () => resolve());
    if (!out.destroyed && !out.writableEnded) out.end();
  });
}
