// The Storage contract as stages and operations rely on it, checked against the local-disk
// backend: keys stay inside the store, stat answers a typed not-found, range reads give exactly
// the bytes asked for, and local() hands a tool the stored file itself without copying.
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { text } from "node:stream/consumers";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkKey, defineLocalStorage, StorageNotFoundError, type LocalStorage } from "../../daemon/storage/storage.js";

describe("storage contract (local disk)", () => {
  let dir: string;
  let storage: LocalStorage;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "clipd-storage-"));
    storage = defineLocalStorage(path.join(dir, "store"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const digits = "0123456789";

  it("stats a stored file and answers a typed not-found for a missing key or a folder", async () => {
    const before = Date.now();
    await storage.write("s/a.txt", digits);
    const st = await storage.stat("s/a.txt");
    expect(st.size).toBe(10);
    expect(st.mtime).toBeInstanceOf(Date);
    expect(st.mtime.getTime()).toBeGreaterThan(before - 5_000);
    for (const key of ["s/missing.txt", "s", "s/a.txt/below"]) {
      const err = await storage.stat(key).catch((e) => e);
      expect(err).toBeInstanceOf(StorageNotFoundError);
      expect(err).toMatchObject({ code: "storage_not_found", key });
    }
    expect(await storage.exists("s/a.txt")).toBe(true);
    expect(await storage.exists("s/missing.txt")).toBe(false);
    expect(await storage.exists("s")).toBe(false); // folders are not files; an object store has none
    await expect(storage.local("s/missing.txt", { workdir: dir })).rejects.toBeInstanceOf(StorageNotFoundError);
  });

  it("reads a whole file or an inclusive byte range as a stream", async () => {
    await storage.write("r/d.txt", digits);
    expect(await text(storage.readStream("r/d.txt"))).toBe(digits);
    expect(await text(storage.readStream("r/d.txt", { start: 0, end: 0 }))).toBe("0");
    expect(await text(storage.readStream("r/d.txt", { start: 3, end: 6 }))).toBe("3456");
    expect(await text(storage.readStream("r/d.txt", { start: 7, end: 9 }))).toBe("789");
    // A missing key fails the stream, not the call: callers that need a clean answer stat first.
    await expect(text(storage.readStream("r/none.txt"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("writes through a stream and moves a finished part to its key, leaving no part behind", async () => {
    await pipeline(Readable.from([Buffer.from("ab"), Buffer.from("cd")]), await storage.writeStream("w/x.part"));
    expect(await storage.move("w/x.part", "w/x.bin")).toBe("w/x.bin");
    expect((await storage.read("w/x.bin")).toString()).toBe("abcd");
    expect(await storage.exists("w/x.part")).toBe(false);
    await expect(storage.move("w/none.part", "w/y.bin")).rejects.toBeInstanceOf(StorageNotFoundError);
  });

  it("local() answers the stored file's own path, copying nothing into the workdir", async () => {
    const workdir = path.join(dir, "work");
    await storage.write("l/f.txt", "hello");
    const file = await storage.local("l/f.txt", { workdir });
    expect(await readFile(file.path, "utf8")).toBe("hello");
    expect(path.relative(storage.root, file.path)).toBe(path.join("l", "f.txt"));
    expect(await readdir(workdir).catch(() => [])).toEqual([]);
    await file.release();
    await file.release();
    expect(await storage.exists("l/f.txt")).toBe(true); // releasing the disk backend's own file keeps it
  });

  it("stores a tool's output from a local file, by copy or by move", async () => {
    const out = path.join(dir, "tool-out.txt");
    await writeFile(out, "made");
    await storage.putFile("p/copy.txt", out);
    await storage.putFile("p/moved.txt", out, { move: true });
    expect((await storage.read("p/copy.txt")).toString()).toBe("made");
    expect((await storage.read("p/moved.txt")).toString()).toBe("made");
    await expect(readFile(out)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("refuses keys that are empty, absolute or climb out of the root, in every operation", async () => {
    await writeFile(path.join(dir, "outside.txt"), "secret");
    const bad = [
      "",
      "/etc/passwd",
      "../outside.txt",
      "a/../../outside.txt",
      "a/./b",
      "a//b",
      "a/",
      "..\\outside.txt",
      "a\0b",
    ];
    for (const key of bad) {
      expect(() => checkKey(key), key).toThrow(/invalid storage key/);
      await expect(storage.stat(key), key).rejects.toThrow(/invalid storage key/);
      await expect(storage.read(key), key).rejects.toThrow(/invalid storage key/);
      await expect(storage.write(key, "x"), key).rejects.toThrow(/invalid storage key/);
      await expect(storage.local(key, { workdir: dir }), key).rejects.toThrow(/invalid storage key/);
      expect(() => storage.readStream(key), key).toThrow(/invalid storage key/);
    }
    await expect(storage.remove("..")).rejects.toThrow(/invalid storage key/);
    await expect(storage.move("../outside.txt", "in.txt")).rejects.toThrow(/invalid storage key/);
    await expect(storage.parts.writer("../outside.txt", 0)).rejects.toThrow(/invalid storage key/);
    await expect(storage.parts.list("../outside.txt")).rejects.toThrow(/invalid storage key/);
    expect(await readFile(path.join(dir, "outside.txt"), "utf8")).toBe("secret");
    // Names that merely start with dots are ordinary keys.
    await storage.write("..hidden/.x", "ok");
    expect((await storage.read("..hidden/.x")).toString()).toBe("ok");
    expect(checkKey("a\\b.txt")).toBe("a/b.txt");
  });

  /** Writes `data` as the part of `key` at `offset` and commits it: whether it was placed. */
  async function part(key: string, offset: number, data: string): Promise<boolean> {
    const w = await storage.parts.writer(key, offset);
    await pipeline(Readable.from([Buffer.from(data)]), w.stream);
    return w.commit();
  }

  it("collects a file in parts placed once per offset, and joins them whole", async () => {
    const key = "c/talk.wav";
    expect(await storage.parts.list(key)).toEqual([]);
    expect(await part(key, 0, "0123")).toBe(true);
    // Two writers racing for one offset: exactly one is placed, and its bytes are the part's.
    const raced = await Promise.all([part(key, 4, "4567"), part(key, 4, "45")]);
    expect(raced.filter(Boolean)).toHaveLength(1);
    const parts = await storage.parts.list(key);
    expect(parts[0]).toEqual({ offset: 0, size: 4 });
    const second = parts[1]!;
    expect(second.offset).toBe(4);
    // A part that would leave a gap (its offset is not where the parts end) is not placed.
    expect(await part(key, second.offset + second.size + 3, "zz")).toBe(false);
    expect(await part(key, second.offset + second.size, "89")).toBe(true);
    await storage.parts.join(key, key);
    expect((await storage.read(key)).toString()).toMatch(/^0123(4567|45)89$/);
    // Writing and discarding leaves nothing that counts as a part.
    const w = await storage.parts.writer(key, 100);
    await pipeline(Readable.from([Buffer.from("x")]), w.stream);
    await w.discard();
    expect((await storage.parts.list(key)).map((p) => p.offset)).not.toContain(100);
    await storage.parts.remove(key);
    expect(await storage.parts.list(key)).toEqual([]);
    // A late writer after the parts were joined and removed cannot start a file mid-way.
    expect(await part(key, 6, "late")).toBe(false);
    expect(await storage.parts.list(key)).toEqual([]);
    expect((await storage.read(key)).length).toBeGreaterThanOrEqual(8); // the joined file stays
  });

  it("keeps the first note written with the parts", async () => {
    const key = "n/a.mp3";
    expect(await storage.parts.readNote(key)).toBeUndefined();
    const both = await Promise.all([storage.parts.claimNote(key, "first"), storage.parts.claimNote(key, "second")]);
    expect(both[0]).toBe(both[1]);
    expect(await storage.parts.claimNote(key, "third")).toBe(both[0]);
    expect(await storage.parts.readNote(key)).toBe(both[0]);
    await storage.parts.remove(key);
    expect(await storage.parts.readNote(key)).toBeUndefined();
    expect(await readdir(path.join(storage.root, "n"))).toEqual([]); // no temporary file left
  });
});
