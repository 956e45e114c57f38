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
import { checkKey, defineLocalStorage, StorageNotFoundError, type LocalStorage } from "../../daemon/kit/storage.js";

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
    const bad = ["", "/etc/passwd", "../outside.txt", "a/../../outside.txt", "a/./b", "a//b", "a/", "..\\outside.txt", "a\0b"];
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
    expect(await readFile(path.join(dir, "outside.txt"), "utf8")).toBe("secret");
    // Names that merely start with dots are ordinary keys.
    await storage.write("..hidden/.x", "ok");
    expect((await storage.read("..hidden/.x")).toString()).toBe("ok");
    expect(checkKey("a\\b.txt")).toBe("a/b.txt");
  });
});
