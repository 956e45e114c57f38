/**
 * A file collected in parts (chunked uploads, facade/operations/upload-chunks.ts). Each part is
 * written whole to a temporary file and then placed under the offset it starts at, in one atomic
 * step that fails when a part already starts there: two writers racing for one offset cannot both
 * land, with no lock to hold or to leave behind, and a crash mid-part leaves only a temporary file
 * that no listing counts. The parts are joined into the finished file at the end.
 *
 * The local-disk layout (private to this file): `<key>.part/` holds `p<offset, 16 digits>` for
 * each placed part, `*.tmp` while one is being written, and `note` (the caller's few bytes, such
 * as the upload's total and expiry). Placing is link(2), which refuses an existing name on every
 * POSIX file system, NFS included, so daemons sharing the storage folder hold the same guarantee.
 * An object store would map a part to a conditional put (If-None-Match: *) and the join to its
 * multipart completion.
 */
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { link, mkdir, open, readdir, readFile, rename, rm, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Writable } from "node:stream";
import { diskFullOr } from "./disk-full.js";

/** A placed part: the bytes [offset, offset + size). */
export interface StoredPart {
  offset: number;
  size: number;
}

export interface PartWriter {
  /** Where the part's bytes go. End it (or let it fail) before commit or discard. */
  readonly stream: Writable;
  /**
   * Places the written bytes as the part at its offset: false, and nothing placed, when a part
   * starts there already or the parts before it do not end exactly there (another writer won,
   * or the parts were removed meanwhile).
   */
  commit(): Promise<boolean>;
  /** Drops the written bytes. */
  discard(): Promise<void>;
}

export interface PartStore {
  /** The parts of `key`, ordered by offset; [] when there are none. */
  list(key: string): Promise<StoredPart[]>;
  /** A writer for the part of `key` that starts at `offset`. */
  writer(key: string, offset: number): Promise<PartWriter>;
  /** Writes the parts contiguous from 0 into `to` (whole, or not at all); the parts stay. */
  join(key: string, to: string): Promise<void>;
  /** The note kept with the parts: the one there, else `text` now stored (the first writer's wins). */
  claimNote(key: string, text: string): Promise<string>;
  /** The note, or undefined when none was kept. */
  readNote(key: string): Promise<string | undefined>;
  /** Removes the parts, their note and any temporary file; nothing there is not an error. */
  remove(key: string): Promise<void>;
}

/** Where the parts of a key collect (one folder on disk; the sweeper finds them by this name). */
export const PARTS_SUFFIX = ".part";

const partName = (offset: number) => `p${String(offset).padStart(16, "0")}`;
const tempName = () => `${randomBytes(6).toString("hex")}.tmp`;

/** The end of the parts that run contiguously from offset 0. */
export function contiguousEnd(parts: StoredPart[]): number {
  let end = 0;
  for (const p of parts) {
    if (p.offset !== end) break;
    end += p.size;
  }
  return end;
}

/** The part store of a local storage folder; `pathOf` turns a checked key into its path. */
export function defineLocalParts(pathOf: (key: string) => string): PartStore {
  const dirOf = (key: string) => pathOf(`${key}${PARTS_SUFFIX}`);
  const list = async (key: string): Promise<StoredPart[]> => {
    const dir = dirOf(key);
    const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT" || err.code === "ENOTDIR") return [] as string[];
      throw err;
    });
    const parts: StoredPart[] = [];
    for (const name of names) {
      if (!/^p\d{16}$/.test(name)) continue;
      const st = await stat(path.join(dir, name)).catch(() => undefined);
      if (st) parts.push({ offset: Number(name.slice(1)), size: st.size });
    }
    return parts.sort((a, b) => a.offset - b.offset);
  };
  // Created with link(2): the name appears whole or not at all, and an existing one is refused.
  const placeOnce = async (from: string, to: string): Promise<boolean> => {
    try {
      await link(from, to);
      return true;
    } catch (caught) {
      const err = caught as NodeJS.ErrnoException;
      if (err?.code === "EEXIST") return false;
      throw err;
    } finally {
      await unlink(from).catch(() => undefined);
    }
  };
  return {
    list,
    async writer(key, offset) {
      const dir = dirOf(key);
      await mkdir(dir, { recursive: true }).catch((err) => Promise.reject(diskFullOr(err, key)));
      const temp = path.join(dir, tempName());
      const stream = createWriteStream(temp);
      return {
        stream,
        async commit() {
          const placed = path.join(dir, partName(offset));
          if (!(await placeOnce(temp, placed))) return false;
          // The offset was free, but a part there is only good where the parts before it end:
          // a late writer after the parts were joined and removed must not start a new file.
          const before = (await list(key)).filter((p) => p.offset < offset);
          if (contiguousEnd(before) !== offset) {
            await unlink(placed).catch(() => undefined);
            return false;
          }
          return true;
        },
        discard: () => rm(temp, { force: true }),
      };
    },
    async join(key, to) {
      const parts = await list(key);
      const end = contiguousEnd(parts);
      const target = pathOf(to);
      await mkdir(path.dirname(target), { recursive: true });
      // Named like storage.ts's temporary files (…<hex>.part), which the upload sweeper removes
      // when a killed process leaves one. Written through one file handle: a stream piped to
      // per part would gather listeners.
      const temp = `${target}.${randomBytes(6).toString("hex")}.part`;
      const out = await open(temp, "w");
      try {
        for (const p of parts) {
          if (p.offset >= end) break;
          for await (const chunk of createReadStream(path.join(dirOf(key), partName(p.offset))))
            await out.write(chunk as Buffer);
        }
        await out.close();
        await rename(temp, target);
      } catch (err) {
        await out.close().catch(() => undefined);
        await rm(temp, { force: true });
        throw diskFullOr(err, to);
      }
    },
    async claimNote(key, text) {
      const dir = dirOf(key);
      const kept = await readFile(path.join(dir, "note"), "utf8").catch(() => undefined);
      if (kept !== undefined) return kept;
      await mkdir(dir, { recursive: true }).catch((err) => Promise.reject(diskFullOr(err, key)));
      const temp = path.join(dir, `note.${tempName()}`);
      await writeFile(temp, text).catch(async (err) => {
        await rm(temp, { force: true });
        throw diskFullOr(err, key);
      });
      await placeOnce(temp, path.join(dir, "note"));
      return readFile(path.join(dir, "note"), "utf8");
    },
    readNote: (key) => readFile(path.join(dirOf(key), "note"), "utf8").catch(() => undefined),
    remove: (key) => rm(dirOf(key), { recursive: true, force: true }),
  };
}
