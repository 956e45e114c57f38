// The Storage contract on a real S3-compatible server: Ceph's radosgw on a one-node cluster, started
// by scripts/test.mjs (scripts/s3-server.mjs) and named by CLIPD_TEST_S3_* here. The same promises
// as the local disk (test/unit/storage-contract.test.ts): typed not-found, exact byte ranges, whole
// writes, keys that stay inside the store; plus what an object store adds: multipart uploads of
// large files, local copies in the step's workdir, and removal of everything under a key.
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { pipeline } from "node:stream/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StorageNotFoundError } from "../../daemon/storage/storage.js";
import { defineS3Storage, type S3Storage } from "../../daemon/storage/storage-s3.js";

const env = process.env;
if (!env.CLIPD_TEST_S3_ENDPOINT) {
  throw new Error(
    "no S3 server: run the tests through `npm test` / scripts/test.mjs, which " +
      "start radosgw (apt-get install radosgw ceph-mon ceph-osd ceph-common)",
  );
}

describe("storage contract (S3, Ceph radosgw)", () => {
  let dir: string;
  let s: S3Storage;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "clipd-s3-store-"));
    // A prefix of its own per run, so reruns against one server never see each other's objects.
    s = defineS3Storage({
      bucket: env.CLIPD_TEST_S3_BUCKET!,
      prefix: `t-${randomBytes(4).toString("hex")}`,
      endpoint: env.CLIPD_TEST_S3_ENDPOINT,
      region: env.CLIPD_TEST_S3_REGION,
      pathStyle: true,
      accessKeyId: env.CLIPD_TEST_S3_ACCESS_KEY,
      secretAccessKey: env.CLIPD_TEST_S3_SECRET_KEY,
    });
  });
  afterAll(async () => {
    s?.client.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  const digits = "0123456789";

  it("stats a stored object and answers a typed not-found for a missing key", async () => {
    await s.write("s/a.txt", digits);
    expect(await s.stat("s/a.txt")).toMatchObject({ size: 10, mtime: expect.any(Date) });
    expect(await s.size("s/a.txt")).toBe(10);
    for (const key of ["s/missing.txt", "s"]) await expect(s.stat(key)).rejects.toBeInstanceOf(StorageNotFoundError);
    expect(await s.exists("s/a.txt")).toBe(true);
    expect(await s.exists("s")).toBe(false);
    await expect(s.local("s/missing.txt", { workdir: dir })).rejects.toBeInstanceOf(StorageNotFoundError);
    await expect(s.read("s/missing.txt")).rejects.toBeInstanceOf(StorageNotFoundError);
  });

  it("reads a whole object, an inclusive byte range, or its head", async () => {
    await s.write("r/d.txt", digits);
    expect(await text(s.readStream("r/d.txt"))).toBe(digits);
    expect(await text(s.readStream("r/d.txt", { start: 0, end: 0 }))).toBe("0");
    expect(await text(s.readStream("r/d.txt", { start: 3, end: 6 }))).toBe("3456");
    expect((await s.readHead("r/d.txt", 4)).toString()).toBe("0123");
    expect((await s.readHead("r/d.txt", 64)).toString()).toBe(digits);
    await expect(text(s.readStream("r/none.txt"))).rejects.toBeInstanceOf(StorageNotFoundError);
  });

  it("writes through a stream in parts, whole once finished, and moves it", async () => {
    // 20 MiB: more than two multipart parts of 8 MiB.
    const big = randomBytes(20 * 1024 * 1024);
    const chunks = Array.from({ length: 20 }, (_, i) => big.subarray(i * 1024 * 1024, (i + 1) * 1024 * 1024));
    await pipeline(Readable.from(chunks), await s.writeStream("w/big.part"));
    expect(await s.size("w/big.part")).toBe(big.length);
    expect(await s.move("w/big.part", "w/big.bin")).toBe("w/big.bin");
    expect(await s.exists("w/big.part")).toBe(false);
    expect((await s.read("w/big.bin")).equals(big)).toBe(true);
    await expect(s.move("w/none.part", "w/y.bin")).rejects.toBeInstanceOf(StorageNotFoundError);
  });

  it("stores a tool's output from a local file, by copy or by move, and hands files back as local copies", async () => {
    const out = path.join(dir, "tool-out.bin");
    const bytes = randomBytes(9 * 1024 * 1024); // over one part: a multipart upload
    await writeFile(out, bytes);
    await s.putFile("p/copy.bin", out);
    await s.putFile("p/moved.bin", out, { move: true });
    await expect(stat(out)).rejects.toMatchObject({ code: "ENOENT" });
    const workdir = path.join(dir, "work");
    const file = await s.local("p/moved.bin", { workdir });
    expect((await readFile(file.path)).equals(bytes)).toBe(true);
    expect(path.relative(workdir, file.path).startsWith("..")).toBe(false); // inside the step's workdir
    await file.release();
    await file.release();
    expect(await readdir(workdir)).toEqual([]);
    expect(await s.exists("p/moved.bin")).toBe(true);
  });

  it("removes a key and everything stored under it", async () => {
    await s.write("x/run/a.txt", "a");
    await s.write("x/run/sub/b.txt", "b");
    await s.write("x/runner.txt", "kept: a sibling, not under the key");
    await s.remove("x/run");
    expect(await s.exists("x/run/a.txt")).toBe(false);
    expect(await s.exists("x/run/sub/b.txt")).toBe(false);
    expect(await s.exists("x/runner.txt")).toBe(true);
    await s.remove("x/never-there");
  });

  it("refuses keys that are empty, absolute or climb out", async () => {
    for (const key of ["", "/etc/passwd", "../outside.txt", "a/../../b", "a//b"]) {
      await expect(s.write(key, "x"), key).rejects.toThrow(/invalid storage key/);
      await expect(s.stat(key), key).rejects.toThrow(/invalid storage key/);
      expect(() => s.readStream(key), key).toThrow(/invalid storage key/);
    }
  });

  /** Writes `data` as the part of `key` at `offset` and commits it: whether it was placed. */
  async function part(key: string, offset: number, data: string): Promise<boolean> {
    const w = await s.parts.writer(key, offset);
    await pipeline(Readable.from([Buffer.from(data)]), w.stream);
    return w.commit();
  }

  it("collects a file in parts placed once per offset, and joins them whole", async () => {
    const key = "c/talk.wav";
    expect(await s.parts.list(key)).toEqual([]);
    expect(await part(key, 0, "0123")).toBe(true);
    expect(await part(key, 4, "4567")).toBe(true);
    expect(await part(key, 4, "45")).toBe(false); // the offset is taken
    expect(await part(key, 11, "zz")).toBe(false); // a gap
    expect(await part(key, 8, "89")).toBe(true);
    expect(await s.parts.list(key)).toEqual([
      { offset: 0, size: 4 },
      { offset: 4, size: 4 },
      { offset: 8, size: 2 },
    ]);
    await s.parts.join(key, key);
    expect((await s.read(key)).toString()).toBe("0123456789");
    expect(await s.parts.claimNote(key, "first")).toBe("first");
    expect(await s.parts.claimNote(key, "second")).toBe("first");
    await s.parts.remove(key);
    expect(await s.parts.list(key)).toEqual([]);
    expect(await s.parts.readNote(key)).toBeUndefined();
    expect(await part(key, 6, "late")).toBe(false);
    expect((await s.read(key)).toString()).toBe("0123456789");
  });
});
