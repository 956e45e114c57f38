// Signed upload addresses and download links over real HTTP on loopback: streaming PUT with the
// size cap and the type check, and downloads with HTTP Range.
import { createHash, randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LinkSigner } from "../../facade/signing.js";
import { downloadLink, uploadLink, type LinkServices } from "../../facade/uploads.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { storedPath } from "../helpers/stage-ctx.js";
import { waitFor } from "../helpers/wait.js";

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const MB = 1024 * 1024;

/** PUT with a chunked body (no Content-Length), the way a streaming client sends. */
function putChunked(url: string, chunks: Buffer[]): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "PUT", headers: { "content-type": "audio/wav" } });
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on("error", reject);
    let i = 0;
    const next = () => {
      if (req.destroyed) return;
      if (i === chunks.length) return void req.end();
      req.write(chunks[i++], () => setTimeout(next, 2));
    };
    next();
  });
}

describe.each(testBackends())("files on %s", (backend) => {
  let t: ApiServer;
  let links: LinkServices;
  let accountId: string;
  let jfk: Buffer;

  beforeAll(async () => {
    t = await openApiServer(backend);
    links = { config: t.app.config, signer: await LinkSigner.create(t.app.db) };
    accountId = (await t.account()).accountId;
    jfk = await readFile(TEST_MEDIA.jfkWav);
  });
  afterAll(() => t?.close());

  const folderOf = (key: string) => path.dirname(storedPath(t.app.storage, key));
  const filesIn = (dir: string) => readdir(dir).catch(() => [] as string[]);
  const link = (fileName: string, maxBytes = 10 * MB) =>
    uploadLink(links, { accountId, ref: randomUUID(), fileName, maxBytes, origin: t.base });

  it("streams a PUT of jfk.wav to storage and answers its key and size", async () => {
    const up = link("My Talk (final).WAV");
    expect(up).toMatchObject({ method: "PUT", headers: { "Content-Type": "audio/wav" } });
    expect(up.key).toMatch(new RegExp(`^uploads/${accountId}/[0-9a-f-]{36}/My_Talk_final\\.wav$`));
    expect(up.url.startsWith(`${t.base}/api/v1/uploads/`)).toBe(true);
    expect(Date.parse(up.expires_at) - Date.now()).toBeGreaterThan(119 * 60_000);
    const res = await fetch(up.url, {
      method: "PUT",
      headers: up.headers,
      body: Readable.toWeb(createReadStream(TEST_MEDIA.jfkWav, { highWaterMark: 16 * 1024 })) as any,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ key: up.key, bytes: jfk.length });
    expect(sha(await t.app.storage.read(up.key))).toBe(sha(jfk));
    expect(await filesIn(folderOf(up.key))).toEqual(["My_Talk_final.wav"]); // no partial file left
  });

  it("refuses a body over the cap with 413 and max_bytes, before reading when Content-Length says so", async () => {
    const up = link("talk.wav", 100_000);
    const res = await fetch(up.url, { method: "PUT", headers: up.headers, body: jfk });
    expect(res.status).toBe(413);
    expect((await res.json()).error).toMatchObject({ code: "too_big", max_bytes: 100_000, bytes: jfk.length });
    expect(await t.app.storage.exists(up.key)).toBe(false);
    expect(await filesIn(folderOf(up.key))).toEqual([]);
  });

  it("stops a chunked upload at the cap while streaming and deletes the partial file", async () => {
    const up = link("talk.wav", 100_000);
    const chunks: Buffer[] = [];
    for (let i = 0; i < jfk.length; i += 16 * 1024) chunks.push(jfk.subarray(i, i + 16 * 1024));
    const res = await putChunked(up.url, chunks);
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: "too_big", max_bytes: 100_000 });
    // The partial file is removed once the refused stream has closed, which may be just after the answer.
    await waitFor(async () => (await filesIn(folderOf(up.key))).length === 0, {
      what: "the partial file to be deleted",
      timeoutMs: 30_000,
    });
    expect(await filesIn(folderOf(up.key))).toEqual([]);
  });

  it("accepts a chunked upload under the cap", async () => {
    const up = link("talk.wav");
    const chunks: Buffer[] = [];
    for (let i = 0; i < jfk.length; i += 64 * 1024) chunks.push(jfk.subarray(i, i + 64 * 1024));
    const res = await putChunked(up.url, chunks);
    expect(res).toEqual({ status: 200, body: { key: up.key, bytes: jfk.length } });
  });

  it("checks the bytes against the file name's type", async () => {
    const asMp4 = link("talk.mp4");
    const res = await fetch(asMp4.url, { method: "PUT", body: jfk });
    expect(res.status).toBe(415);
    expect((await res.json()).error).toMatchObject({
      code: "unsupported_type",
      extension: ".mp4",
      detected: "wav (.wav)",
    });
    expect(await filesIn(folderOf(asMp4.key))).toEqual([]);

    const page = link("talk.wav");
    const html = await fetch(page.url, { method: "PUT", body: "<!doctype html><html><body>not audio</body></html>" });
    expect(html.status).toBe(415);
    expect((await html.json()).error).toMatchObject({
      code: "unsupported_type",
      extension: ".wav",
      detected: "a web page",
    });

    const empty = await fetch(link("talk.wav").url, { method: "PUT", body: "" });
    expect(empty.status).toBe(400);
    expect((await empty.json()).error.code).toBe("empty_upload");

    expect(() => link("notes.txt")).toThrowError(
      expect.objectContaining({
        status: 400,
        code: "unsupported_type",
        context: expect.objectContaining({ field: "file_name", extension: ".txt" }),
      }),
    );
    expect(() => link("noext")).toThrowError(/no file extension/);
  });

  it("refuses a changed token with 403 and an expired one with 410", async () => {
    const up = link("talk.wav");
    const token = up.url.split("/").pop()!;
    const [body, mac] = token.split(".");
    const claims = JSON.parse(Buffer.from(body!, "base64url").toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, max: 10 * 1024 * MB })).toString("base64url");
    const tampered = await fetch(`${t.base}/api/v1/uploads/${forged}.${mac}`, { method: "PUT", body: jfk });
    expect(tampered.status).toBe(403);
    expect((await tampered.json()).error.code).toBe("bad_signature");
    const garbage = await fetch(`${t.base}/api/v1/uploads/nonsense`, { method: "PUT", body: jfk });
    expect(garbage.status).toBe(403);

    const expired = links.signer.sign({ k: "upload", key: up.key, max: MB, type: ".wav" }, -5);
    const late = await fetch(`${t.base}/api/v1/uploads/${expired.token}`, { method: "PUT", body: jfk });
    expect(late.status).toBe(410);
    expect((await late.json()).error.code).toBe("link_expired");

    // A download link is not an upload address.
    const dl = downloadLink(links, { key: up.key, name: "x.wav" });
    const wrongKind = await fetch(`${t.base}/api/v1/uploads/${dl.url.split("/").pop()}`, { method: "PUT", body: jfk });
    expect(wrongKind.status).toBe(403);
    expect(await t.app.storage.exists(up.key)).toBe(false);
  });

  describe("downloads", () => {
    const key = "dl/jfk.wav";
    let url: string;
    beforeAll(async () => {
      await t.app.storage.putFile(key, TEST_MEDIA.jfkWav);
      const dl = downloadLink(links, { key, name: "JFK – inaugural.wav", type: "audio/wav", origin: t.base });
      expect(Date.parse(dl.expires_at) - Date.now()).toBeGreaterThan(7 * 86400_000 - 60_000);
      url = dl.url;
    });

    it("serves the whole file with type, name and Accept-Ranges", async () => {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("audio/wav");
      expect(res.headers.get("accept-ranges")).toBe("bytes");
      expect(res.headers.get("content-length")).toBe(String(jfk.length));
      expect(res.headers.get("content-disposition")).toBe(
        `inline; filename="JFK _ inaugural.wav"; filename*=UTF-8''JFK%20%E2%80%93%20inaugural.wav`,
      );
      expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(sha(jfk));
    });

    it("serves byte ranges with 206 and Content-Range", async () => {
      const mid = await fetch(url, { headers: { range: "bytes=100-199" } });
      expect(mid.status).toBe(206);
      expect(mid.headers.get("content-range")).toBe(`bytes 100-199/${jfk.length}`);
      expect(mid.headers.get("content-length")).toBe("100");
      expect(Buffer.from(await mid.arrayBuffer()).equals(jfk.subarray(100, 200))).toBe(true);

      const tail = await fetch(url, { headers: { range: "bytes=-10" } });
      expect(tail.status).toBe(206);
      expect(tail.headers.get("content-range")).toBe(`bytes ${jfk.length - 10}-${jfk.length - 1}/${jfk.length}`);
      expect(Buffer.from(await tail.arrayBuffer()).equals(jfk.subarray(-10))).toBe(true);

      const open = await fetch(url, { headers: { range: `bytes=${jfk.length - 5}-` } });
      expect(open.status).toBe(206);
      expect(Buffer.from(await open.arrayBuffer()).equals(jfk.subarray(-5))).toBe(true);

      const past = await fetch(url, { headers: { range: `bytes=352000-999999999` } });
      expect(past.status).toBe(206);
      expect(past.headers.get("content-range")).toBe(`bytes 352000-${jfk.length - 1}/${jfk.length}`);
      await past.arrayBuffer();
    });

    it("answers 416 for ranges outside the file or malformed", async () => {
      for (const range of [`bytes=${jfk.length}-`, "bytes=500-400", "bytes=abc", "bytes=-0"]) {
        const res = await fetch(url, { headers: { range } });
        expect(res.status, range).toBe(416);
        expect(res.headers.get("content-range")).toBe(`bytes */${jfk.length}`);
        expect((await res.json()).error.code).toBe("range_not_satisfiable");
      }
    });

    it("refuses expired and changed links, and says 404 for a file not there", async () => {
      const expired = links.signer.sign({ k: "download", key, name: "jfk.wav" }, -1);
      const late = await fetch(`${t.base}/api/v1/files/${expired.token}`);
      expect(late.status).toBe(410);
      expect((await late.json()).error.code).toBe("link_expired");
      const changed = await fetch(url.slice(0, -3) + (url.endsWith("AAA") ? "BBB" : "AAA"));
      expect(changed.status).toBe(403);
      const missing = await fetch(downloadLink(links, { key: "dl/nothing.wav", name: "n.wav", origin: t.base }).url);
      expect(missing.status).toBe(404);
      expect((await missing.json()).error.code).toBe("not_found");
      expect((await t.app.storage.stat(key)).size).toBe(jfk.length);
    });
  });
});
