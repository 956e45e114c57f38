/**
 * Media storage: files addressed by keys ("runs/<id>/source.wav") under one root folder.
 * Keys are relative, use forward slashes and may not climb out of the root. S3 or similar can
 * implement the same interface later without touching the stages.
 */
import { createReadStream, createWriteStream, type ReadStream, type WriteStream } from "node:fs";
import { copyFile, mkdir, open, rename, rm, stat, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Writable } from "node:stream";

export interface Storage {
  readonly root: string;
  /** Absolute local path of a key. Nothing is created; putFile, write and writeStream make folders. */
  pathOf(key: string): string;
  exists(key: string): Promise<boolean>;
  size(key: string): Promise<number>;
  /** Copies (or moves, with `move: true`) a local file into storage. */
  putFile(key: string, from: string, opts?: { move?: boolean }): Promise<string>;
  write(key: string, data: string | Buffer): Promise<string>;
  read(key: string): Promise<Buffer>;
  /** The first `bytes` bytes of a file (fewer when it is shorter), to tell its type. */
  readHead(key: string, bytes: number): Promise<Buffer>;
  readStream(key: string): ReadStream;
  writeStream(key: string): Promise<WriteStream>;
  remove(key: string): Promise<void>;
}

export function checkKey(key: string): string {
  const clean = key.replace(/\\/g, "/");
  if (!clean || clean.startsWith("/") || clean.split("/").some((p) => p === ".." || p === "")) {
    throw new Error(`invalid storage key "${key}"`);
  }
  return clean;
}

export function defineLocalStorage(root: string): Storage {
  const abs = path.resolve(root);
  const pathOf = (key: string) => path.join(abs, checkKey(key));
  const ensureDir = (key: string) => mkdir(path.dirname(pathOf(key)), { recursive: true });
  return {
    root: abs,
    pathOf,
    async exists(key) {
      try {
        await stat(pathOf(key));
        return true;
      } catch {
        return false;
      }
    },
    async size(key) {
      return (await stat(pathOf(key))).size;
    },
    async putFile(key, from, opts = {}) {
      await ensureDir(key);
      const to = pathOf(key);
      if (opts.move) {
        try {
          await rename(from, to);
          return key;
        } catch (err: any) {
          if (err?.code !== "EXDEV") throw err;
        }
      }
      // Copy to a temporary name first so a reader never sees half a file.
      await copyFile(from, to + ".part");
      await rename(to + ".part", to);
      if (opts.move) await rm(from, { force: true });
      return key;
    },
    async write(key, data) {
      await ensureDir(key);
      const to = pathOf(key);
      await writeFile(to + ".part", data);
      await rename(to + ".part", to);
      return key;
    },
    read: (key) => readFile(pathOf(key)),
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
    readStream: (key) => createReadStream(pathOf(key)),
    async writeStream(key) {
      await ensureDir(key);
      return createWriteStream(pathOf(key));
    },
    async remove(key) {
      await rm(pathOf(key), { force: true, recursive: true });
    },
  };
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
