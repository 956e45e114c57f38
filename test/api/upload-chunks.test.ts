// Chunked PUTs to upload addresses over real HTTP on loopback (docs/website.md, "Uploads that
// survive a dropped connection"): a real recording sent in chunks with a connection dropped
// mid-chunk, HEAD and resume; offsets, totals and caps refused with their numbers; racing chunks;
// a server stopped between the last chunk and the join; test-mode addresses; and an episode made
// through /web whose chunked upload starts its import with origin web.
import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { text } from "node:stream/consumers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LinkSigner } from "../../facade/signing.js";
import { uploadLink, type LinkServices } from "../../facade/uploads.js";
import { MAX_CHUNK_BYTES } from "../../facade/operations/upload-chunks.js";
import { sweepPartialUploads } from "../../facade/upload-sweeper.js";
import type { LocalStorage } from "../../daemon/storage/storage.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { storedPath } from "../helpers/stage-ctx.js";
import { waitFor } from "../helpers/wait.js";
import { WebClient } from "../helpers/web.js";

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** PUTs bytes [first, first + data.length) of a `total`-byte file as one chunk. */
async function putChunk(url: string, data: Buffer, first: number, total: number, type = "audio/wav") {
  const res = await fetch(url, {
    method: "PUT",
    headers: { "content-type": type, "content-range": `bytes ${first}-${first + data.length - 1}/${total}` },
    body: data,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

async function head(url: string) {
  const res = await fetch(url, { method: "HEAD" });
  return {
    status: res.status,
    offset: res.headers.get("upload-offset"),
    length: res.headers.get("upload-length"),
    code: res.headers.get("x-error-code"),
  };
}

/** A chunk PUT whose body the test writes by hand: `send` part of it, then `end` or `drop`. */
function openChunk(url: string, first: number, size: number, total: number) {
  const req = http.request(url, {
    method: "PUT",
    headers: {
      "content-type": "audio/wav",
      "content-range": `bytes ${first}-${first + size - 1}/${total}`,
      "content-length": String(size),
    },
  });
  const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req.on(
      "response",
      (res) => void text(res).then((t) => resolve({ status: res.statusCode!, body: JSON.parse(t) }), reject),
    );
    req.on("error", reject);
  });
  return {
    answer,
    send: (data: Buffer) =>
      new Promise<void>((resolve, reject) => req.write(data, (err) => (err ? reject(err) : resolve()))),
    end: (data: Buffer) => req.end(data),
    drop: () => req.destroy(),
  };
}

describe("chunked uploads", () => {
  let t: ApiServer;
  let links: LinkServices;
  let accountId: string;
  let jfk: Buffer;

  beforeAll(async () => {
    t = await openApiServer("pglite");
    links = { config: t.app.config, signer: await LinkSigner.create(t.app.db) };
    accountId = (await t.account()).accountId;
    jfk = await readFile(TEST_MEDIA.jfkWav);
  });
  afterAll(() => t?.close());

  const link = (opts: { maxBytes?: number; test?: boolean; fileName?: string } = {}) =>
    uploadLink(links, {
      accountId,
      ref: randomUUID(),
      fileName: opts.fileName ?? "talk.wav",
      maxBytes: opts.maxBytes ?? 10 * 1024 * 1024,
      origin: t.base,
      test: opts.test,
    });
  const partsDir = (key: string) => `${storedPath(t.app.storage, key)}.part`;
  const tempsIn = async (key: string) =>
    // chunks being written
    (await readdir(partsDir(key)).catch(() => [] as string[])).filter((n) => /^[0-9a-f]{12}\.tmp$/.test(n));

  it(
    "takes a recording in chunks, keeps what arrived of a dropped chunk, and " +
      "resumes from HEAD to a byte-identical file",
    async () => {
      const up = link();
      const size = 100_000;
      expect(await head(up.url)).toMatchObject({ status: 200, offset: "0", length: null });
      const first = await putChunk(up.url, jfk.subarray(0, size), 0, jfk.length);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ received: size, total: jfk.length, complete: false });
      expect(await head(up.url)).toMatchObject({ offset: String(size), length: String(jfk.length) });

      // The second chunk: half of it sent, then the connection drops.
      const open = openChunk(up.url, size, size, jfk.length);
      open.answer.catch(() => undefined);
      await open.send(jfk.subarray(size, size + size / 2));
      await waitFor(
        async () => {
          const temps = await tempsIn(up.key);
          const sizes = await Promise.all(
            temps.map(async (n) => (await readFile(path.join(partsDir(up.key), n))).length),
          );
          return sizes.some((n) => n > 0);
        },
        { what: "the server to store some of the chunk" },
      );
      open.drop();
      await waitFor(async () => (await tempsIn(up.key)).length === 0, {
        what: "the server to settle the dropped chunk",
      });
      const after = await head(up.url);
      const offset = Number(after.offset);
      expect(offset).toBeGreaterThan(size); // what arrived was kept
      expect(offset).toBeLessThanOrEqual(size + size / 2);

      // Resume from the offset HEAD gave, in chunks, to the end.
      let at = offset;
      let last;
      while (at < jfk.length) {
        const piece = jfk.subarray(at, Math.min(at + size, jfk.length));
        last = await putChunk(up.url, piece, at, jfk.length);
        expect(last.status).toBe(200);
        at += piece.length;
      }
      expect(last!.body).toEqual({
        key: up.key,
        bytes: jfk.length,
        received: jfk.length,
        total: jfk.length,
        complete: true,
      });
      expect(sha(await t.app.storage.read(up.key))).toBe(sha(jfk));
      expect(await head(up.url)).toMatchObject({ offset: String(jfk.length), length: String(jfk.length) });
      // The parts are gone once joined; only the file stays in its folder.
      expect(await readdir(path.dirname(storedPath(t.app.storage, up.key)))).toEqual(["talk.wav"]);
    },
  );

  it("refuses a chunk at the wrong offset, a changed total and a total over the cap, with their numbers", async () => {
    const up = link({ maxBytes: 500_000 });
    expect((await putChunk(up.url, jfk.subarray(0, 1000), 0, jfk.length)).status).toBe(200);
    const gap = await putChunk(up.url, jfk.subarray(5000, 6000), 5000, jfk.length);
    expect(gap.status).toBe(409);
    expect(gap.body.error).toMatchObject({ code: "upload_offset_mismatch", offset: 1000 });
    expect(gap.headers.get("upload-offset")).toBe("1000");
    const again = await putChunk(up.url, jfk.subarray(0, 1000), 0, jfk.length);
    expect(again.body.error).toMatchObject({ code: "upload_offset_mismatch", offset: 1000 });
    const changed = await putChunk(up.url, jfk.subarray(1000, 2000), 1000, jfk.length + 1);
    expect(changed.status).toBe(409);
    expect(changed.body.error).toMatchObject({ code: "upload_total_changed", total: jfk.length });
    const over = await putChunk(link({ maxBytes: 200_000 }).url, jfk.subarray(0, 1000), 0, jfk.length);
    expect(over.status).toBe(413);
    expect(over.body.error).toMatchObject({ code: "too_big", max_bytes: 200_000, bytes: jfk.length });
    const huge = await fetch(link({ maxBytes: 1e9 }).url, {
      method: "PUT",
      headers: { "content-range": `bytes 0-${MAX_CHUNK_BYTES}/${2 * MAX_CHUNK_BYTES}` },
      body: "x",
    });
    expect(huge.status).toBe(413);
    expect((await huge.json()).error).toMatchObject({ code: "chunk_too_big", max_chunk_bytes: MAX_CHUNK_BYTES });
    for (const bad of ["bytes 5-1/10", "bytes 0-10/10", "items 0-1/2", "bytes */10"]) {
      const res = await fetch(up.url, { method: "PUT", headers: { "content-range": bad }, body: "xy" });
      expect(res.status, bad).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: "bad_content_range", field: "Content-Range" });
    }
    // A first chunk whose bytes are not the named type is refused before anything is kept.
    const words = await putChunk(link().url, Buffer.alloc(4096, "hello "), 0, 10_000, "audio/wav");
    expect(words.status).toBe(415);
    expect(words.body.error.code).toBe("unsupported_type");
  });

  it("lets exactly one of two chunks racing for the same offset land, and the file stays whole", async () => {
    const up = link();
    const size = 120_000;
    expect((await putChunk(up.url, jfk.subarray(0, size), 0, jfk.length)).status).toBe(200);
    // Both pass the offset check, then both finish writing: one is placed, the other told the offset.
    const a = openChunk(up.url, size, size, jfk.length);
    const b = openChunk(up.url, size, size, jfk.length);
    await a.send(jfk.subarray(size, size + 1000));
    await b.send(jfk.subarray(size, size + 1000));
    await waitFor(async () => (await tempsIn(up.key)).length === 2, { what: "both chunks to be under way" });
    a.end(jfk.subarray(size + 1000, 2 * size));
    b.end(jfk.subarray(size + 1000, 2 * size));
    const answers = await Promise.all([a.answer, b.answer]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(answers.find((r) => r.status === 409)!.body.error).toMatchObject({
      code: "upload_offset_mismatch",
      offset: 2 * size,
    });
    const rest = await putChunk(up.url, jfk.subarray(2 * size), 2 * size, jfk.length);
    expect(rest.body).toMatchObject({ complete: true, bytes: jfk.length });
    expect(sha(await t.app.storage.read(up.key))).toBe(sha(jfk));
  });

  it(
    "ignores a chunk a killed server left half-written, and HEAD finishes a " +
      "file whose chunks were all stored but not joined",
    async () => {
      const up = link();
      await t.app.storage.parts.claimNote(up.key, JSON.stringify({ total: jfk.length, expires_at: up.expires_at }));
      for (const [from, to] of [
        [0, 200_000],
        [200_000, jfk.length],
      ] as const) {
        const w = await t.app.storage.parts.writer(up.key, from);
        await new Promise<void>((resolve) => w.stream.end(jfk.subarray(from, to), resolve));
        expect(await w.commit()).toBe(true);
      }
      // what a killed writer leaves
      await writeFile(path.join(partsDir(up.key), "0123456789ab.tmp"), jfk.subarray(0, 500));
      expect(await head(up.url)).toMatchObject({ status: 200, offset: String(jfk.length), length: String(jfk.length) });
      expect(sha(await t.app.storage.read(up.key))).toBe(sha(jfk));
      expect(await t.app.storage.parts.list(up.key)).toEqual([]);

      const half = link();
      await t.app.storage.parts.claimNote(half.key, JSON.stringify({ total: jfk.length, expires_at: half.expires_at }));
      await writeFile(path.join(partsDir(half.key), "ba9876543210.tmp"), jfk.subarray(0, 5000));
      expect(await head(half.url)).toMatchObject({ offset: "0", length: String(jfk.length) });
    },
  );

  it("sweeps the chunks of an upload once its link has expired, not before", async () => {
    const root = (t.app.storage as LocalStorage).root;
    const up = link();
    expect((await putChunk(up.url, jfk.subarray(0, 50_000), 0, jfk.length)).status).toBe(200);
    const expiry = Date.parse(up.expires_at);
    // (Other tests' unfinished uploads are swept alongside; only this one's folder is looked at.)
    expect(await sweepPartialUploads(root, { now: expiry - 60_000 })).not.toContain(partsDir(up.key));
    expect(await head(up.url)).toMatchObject({ offset: "50000" });
    expect(await sweepPartialUploads(root, { now: expiry + 1000 })).toContain(partsDir(up.key));
    expect(await head(up.url)).toMatchObject({ offset: "0", length: null });
    // Without a note (a writer killed before writing it), the folder's age decides.
    const bare = link();
    const w = await t.app.storage.parts.writer(bare.key, 0);
    await new Promise<void>((resolve) => w.stream.end(jfk.subarray(0, 10), resolve));
    await w.commit();
    expect(await sweepPartialUploads(root, { now: Date.now() + 60 * 60_000 })).not.toContain(partsDir(bare.key));
    expect(await sweepPartialUploads(root, { now: Date.now() + 2 * 60 * 60_000 + 60_000 })).toContain(
      partsDir(bare.key),
    );
  });

  it("still takes a whole PUT, and a test-mode address takes chunks but keeps nothing", async () => {
    const whole = link();
    // begun in chunks, then sent whole
    expect((await putChunk(whole.url, jfk.subarray(0, 1000), 0, jfk.length)).status).toBe(200);
    const res = await fetch(whole.url, { method: "PUT", headers: whole.headers, body: jfk });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ key: whole.key, bytes: jfk.length });
    expect(await head(whole.url)).toMatchObject({ offset: String(jfk.length), length: String(jfk.length) });

    const test = link({ test: true });
    const one = await putChunk(test.url, jfk.subarray(0, 200_000), 0, jfk.length);
    expect(one.body).toEqual({ received: 200_000, total: jfk.length, complete: false, livemode: false });
    const two = await putChunk(test.url, jfk.subarray(200_000), 200_000, jfk.length);
    expect(two.body).toEqual({
      received: jfk.length,
      total: jfk.length,
      complete: true,
      key: test.key,
      bytes: jfk.length,
      livemode: false,
    });
    expect(await t.app.storage.exists(test.key)).toBe(false);
    expect(await head(test.url)).toMatchObject({ status: 200, offset: "0" });
    expect(await head(`${t.base}/api/v1/uploads/not-a-token`)).toMatchObject({ status: 403, code: "bad_signature" });
  });

  it("starts an episode made through /web from a chunked upload, with origin web", async () => {
    const c = new WebClient(t.base);
    const up = await c.signUp();
    await t.app.accounts.addCredit(up.body.account.id, 500);
    const made = await c.call("POST", "/api/v1/episodes", { file_name: "jfk.wav" });
    expect(made.status).toBe(202);
    const url: string = made.body.upload.url;
    const size = 90_000;
    for (let at = 0; at < jfk.length; at += size) {
      const r = await putChunk(url, jfk.subarray(at, at + size), at, jfk.length);
      expect(r.status).toBe(200);
    }
    const done = await c.call("POST", `/api/v1/episodes/${made.body.episode_id}/uploaded`, {});
    expect(done.status).toBe(200);
    expect(done.body.status).toMatch(/importing|transcribing/);
    const { rows } = await t.app.db.query(`select origin, input from runs where origin_ref = $1`, [
      `episode:${made.body.episode_id}`,
    ]);
    expect(rows.map((r) => r.origin)).toEqual(["web"]);
    expect(sha(await t.app.storage.read(rows[0].input.upload.key))).toBe(sha(jfk));
  });
});
