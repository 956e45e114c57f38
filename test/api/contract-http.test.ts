// HTTP-level rules of the whole API over real HTTP on loopback: Idempotency-Key records kept apart
// for test and live keys, RateLimit-* headers on every /api/v1 answer (404s, 401s and 405s too),
// the JSON body limit (refused before the body is read in full), 415 for bodies that are not JSON,
// and 405 with Allow for a known path under another method.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTestFixtures } from "../../facade/testmode.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";

const MB = 1024 * 1024;
const MISSING = "6f1c1f4e-1111-4222-8333-444455556666";

/**
 * POSTs a body of `total` bytes in 64 KB pieces, each after the last was taken, and stops when the
 * answer comes. Says how many bytes had been written by then.
 */
function postStreaming(
  url: string,
  total: number,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; written: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers: { "content-type": "application/json", ...headers } });
    const piece = Buffer.alloc(64 * 1024, 0x20); // spaces: still the inside of a JSON text
    let written = 0;
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      const at = written;
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => {
        req.destroy();
        resolve({ status: res.statusCode!, body: JSON.parse(text), written: at });
      });
    });
    req.on("error", (err) => (answered ? undefined : reject(err)));
    const next = () => {
      if (answered || req.destroyed) return;
      // With a declared length the body is never finished: the answer must come without it.
      if (written >= total) return void (headers["content-length"] ? undefined : req.end());
      written += piece.length;
      req.write(piece, next);
    };
    req.write("{");
    next();
  });
}

describe.each(testBackends())("HTTP contract on %s", (backend) => {
  let s: ApiServer;
  let acc: { accountId: string; live: string; test: string };
  const sampleEpisode = () => loadTestFixtures().episode.episode_id;
  beforeAll(async () => {
    // A day-long window, so the counts below cannot be reset between two requests.
    s = await openApiServer(backend, { api: { rate_limit: { requests: 1000, window_seconds: 86_400 } } });
    acc = await s.account({ creditCents: 1000 }); // live episodes need credit (nothing here is charged)
  });
  afterAll(() => s?.close());

  describe("Idempotency-Key", () => {
    it("keeps test and live keys' records apart: neither replays the other's answer", async () => {
      const body = { file_name: "talk.mp3" };
      const headers = { "idempotency-key": `shared-${backend}` };
      const test1 = await s.call(acc.test, "POST", "/api/v1/episodes", body, headers);
      expect(test1.status).toBe(202);
      expect(test1.body.livemode).toBe(false);
      const live1 = await s.call(acc.live, "POST", "/api/v1/episodes", body, headers);
      expect(live1.status).toBe(202);
      expect(live1.headers.get("idempotent-replayed")).toBeNull();
      expect(live1.body.livemode).toBe(true);
      expect(live1.body.episode_id).not.toBe(test1.body.episode_id);
      // Each mode still replays its own first answer.
      const live2 = await s.call(acc.live, "POST", "/api/v1/episodes", body, headers);
      expect(live2.headers.get("idempotent-replayed")).toBe("true");
      expect(live2.body).toEqual(live1.body);
      const test2 = await s.call(acc.test, "POST", "/api/v1/episodes", body, headers);
      expect(test2.headers.get("idempotent-replayed")).toBe("true");
      expect(test2.body).toEqual(test1.body);
      // And a key used live first is still fresh for the test key.
      const liveFirst = { "idempotency-key": `live-first-${backend}` };
      expect((await s.call(acc.live, "POST", "/api/v1/episodes", body, liveFirst)).body.livemode).toBe(true);
      const testAfter = await s.call(acc.test, "POST", "/api/v1/episodes", body, liveFirst);
      expect(testAfter.headers.get("idempotent-replayed")).toBeNull();
      expect(testAfter.body.livemode).toBe(false);
    });

    it("refuses an empty key and one over 255 characters with 400 naming the header", async () => {
      const empty = await s.call(
        acc.test,
        "POST",
        "/api/v1/episodes",
        { file_name: "talk.mp3" },
        { "idempotency-key": "" },
      );
      expect(empty.status).toBe(400);
      expect(empty.body.error).toMatchObject({
        code: "invalid_request",
        field: "Idempotency-Key",
        message: expect.stringMatching(/Idempotency-Key header is empty/),
      });
      const long = await s.call(
        acc.test,
        "POST",
        "/api/v1/episodes",
        { file_name: "talk.mp3" },
        { "idempotency-key": "k".repeat(256) },
      );
      expect(long.status).toBe(400);
      expect(long.body.error).toMatchObject({ code: "invalid_request", field: "Idempotency-Key", max_length: 255 });
      const longest = await s.call(
        acc.test,
        "POST",
        "/api/v1/episodes",
        { file_name: "talk.mp3" },
        { "idempotency-key": `${backend}-${"k".repeat(240)}` },
      );
      expect(longest.status).toBe(202);
    });
  });

  describe("RateLimit-* headers", () => {
    const remaining = (r: { headers: Headers }) => Number(r.headers.get("ratelimit-remaining"));
    const expectHeaders = (r: { status: number; headers: Headers }, status: number) => {
      expect(r.status).toBe(status);
      expect(r.headers.get("ratelimit-limit"), `RateLimit-Limit on the ${status}`).toBe("1000");
      expect(Number(r.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(1);
    };

    it("are on every answer under /api/v1 with a key, 404s and 405s included, each request counted once", async () => {
      const a = await s.account();
      const seen = [
        [await s.call(a.live, "GET", "/api/v1/me"), 200],
        [await s.call(a.live, "GET", `/api/v1/episodes/${MISSING}`), 404],
        [await s.call(a.live, "GET", "/api/v1/jobs/not-a-uuid"), 404],
        [await s.call(a.live, "GET", "/api/v1/no-such-thing"), 404],
        [await s.call(a.live, "DELETE", "/api/v1/episodes"), 405],
        [await s.call(a.live, "POST", "/api/v1/transcripts", { url: "ftp://x" }), 400],
      ] as const;
      for (const [r, status] of seen) expectHeaders(r, status);
      // One key, one count per request: remaining goes down by exactly one each time.
      const counts = seen.map(([r]) => remaining(r));
      expect(counts).toEqual(counts.map((_, i) => counts[0]! - i));
    });

    it("are on 401s and on unknown routes without a key, counted against the client address", async () => {
      const answers = [
        [await s.call(undefined, "GET", "/api/v1/episodes"), 401],
        [await s.call("svc_live_not-a-real-key", "GET", "/api/v1/me"), 401],
        [await s.call(undefined, "GET", "/api/v1/nowhere"), 404],
        [await s.call(undefined, "GET", `/api/v1/transcribe/${MISSING}`), 404],
      ] as const;
      for (const [r, status] of answers) expectHeaders(r, status);
      const counts = answers.map(([r]) => remaining(r));
      expect(counts).toEqual(counts.map((_, i) => counts[0]! - i));
    });
  });

  describe("request bodies", () => {
    it("refuses a declared Content-Length over 1 MB with 413 body_too_large before reading the body", async () => {
      const r = await postStreaming(`${s.base}/api/v1/transcribe`, 64 * 1024, { "content-length": String(200 * MB) });
      expect(r.status).toBe(413);
      expect(r.body.error).toMatchObject({ code: "body_too_large", max_bytes: MB, bytes: 200 * MB });
      expect(r.written).toBeLessThan(200 * MB);
    });

    it("stops a chunked 200 MB body at the 1 MB cap and answers while the client is still sending", async () => {
      const r = await postStreaming(`${s.base}/api/v1/transcribe`, 200 * MB);
      expect(r.status).toBe(413);
      expect(r.body.error).toMatchObject({ code: "body_too_large", max_bytes: MB });
      // The answer came long before the body was all sent (loopback buffers hold a few MB at most).
      expect(r.written).toBeLessThan(32 * MB);
      // The same on the account API, behind a key.
      const keyed = await postStreaming(`${s.base}/api/v1/episodes`, 200 * MB, { authorization: `Bearer ${acc.test}` });
      expect(keyed.status).toBe(413);
      expect(keyed.written).toBeLessThan(32 * MB);
    });

    it("takes a JSON body just under the cap", async () => {
      const name = "n".repeat(150);
      const padded = JSON.stringify({ file_name: "talk.mp3", name }).replace("{", `{${" ".repeat(MB - 200)}`);
      expect(padded.length).toBeLessThan(MB);
      const r = await s.call(acc.test, "POST", "/api/v1/episodes", padded);
      expect(r.status).toBe(202);
    });

    it(
      "refuses bodies that are not JSON with 415, and takes JSON with a charset " + "or an empty body without a type",
      async () => {
        const plain = await s.call(acc.test, "POST", "/api/v1/episodes", JSON.stringify({ file_name: "talk.mp3" }), {
          "content-type": "text/plain",
        });
        expect(plain.status).toBe(415);
        expect(plain.body.error).toMatchObject({
          code: "unsupported_media_type",
          field: "Content-Type",
          content_type: "text/plain",
          supported: ["application/json"],
        });
        expect(plain.headers.get("ratelimit-limit")).toBe("1000");
        const form = await s.call(acc.test, "POST", "/api/v1/episodes", "file_name=talk.mp3", {
          "content-type": "application/x-www-form-urlencoded",
        });
        expect(form.status).toBe(415);
        expect(form.body.error.code).toBe("unsupported_media_type");
        const anon = await s.call(undefined, "POST", "/api/v1/transcribe", "url=https://example.com/a.mp3", {
          "content-type": "multipart/form-data; boundary=x",
        });
        expect(anon.status).toBe(415);
        const charset = await s.call(acc.test, "POST", "/api/v1/episodes", JSON.stringify({ file_name: "talk.mp3" }), {
          "content-type": "application/json; charset=utf-8",
        });
        expect(charset.status).toBe(202);
        const bare = await fetch(`${s.base}/api/v1/episodes/${sampleEpisode()}/uploaded`, {
          method: "POST",
          headers: { authorization: `Bearer ${acc.test}` },
        });
        expect(bare.headers.get("content-type")).toMatch(/application\/json/);
        expect(bare.status).toBe(200);
      },
    );

    it("leaves uploads of raw media bytes to their own cap, not the JSON limit", async () => {
      const created = await s.call(acc.live, "POST", "/api/v1/episodes", { file_name: "big.wav" });
      expect(created.status).toBe(202);
      const { url, headers } = created.body.upload;
      const wav = Buffer.alloc(3 * MB);
      wav.write("RIFF", 0, "ascii");
      wav.writeUInt32LE(wav.length - 8, 4);
      wav.write("WAVEfmt ", 8, "ascii");
      const put = await fetch(url, { method: "PUT", headers, body: wav });
      expect(put.status).toBe(200);
      expect(((await put.json()) as any).bytes).toBe(3 * MB);
    });
  });

  describe("methods", () => {
    it("answers a known path under another method with 405 and Allow, in the error envelope", async () => {
      const list = await s.call(acc.test, "DELETE", "/api/v1/episodes");
      expect(list.status).toBe(405);
      expect(list.headers.get("allow")).toBe("GET, HEAD, POST");
      expect(list.body.error).toMatchObject({
        code: "method_not_allowed",
        method: "DELETE",
        allow: ["GET", "HEAD", "POST"],
      });
      const one = await s.call(acc.test, "PUT", `/api/v1/episodes/${MISSING}`, {});
      expect(one.status).toBe(405);
      // DELETE /episodes/{id} removes an episode (issue 30).
      expect(one.headers.get("allow")).toBe("GET, HEAD, DELETE");
      const hook = await s.call(acc.test, "GET", `/api/v1/webhooks/${MISSING}/test`);
      expect(hook.headers.get("allow")).toBe("POST");
      const doc = await s.call(undefined, "POST", "/openapi.json");
      expect(doc.status).toBe(405);
      expect(doc.headers.get("allow")).toBe("GET, HEAD");
      // An unknown path stays 404.
      const nowhere = await s.call(acc.test, "DELETE", "/api/v1/nowhere/at/all");
      expect(nowhere.status).toBe(404);
      expect(nowhere.body.error.code).toBe("not_found");
    });
  });
});

describe("the JSON body limit comes from config (server.max_json_bytes)", () => {
  let s: ApiServer;
  beforeAll(async () => {
    s = await openApiServer("pglite", { server: { max_json_bytes: 4096 } });
  });
  afterAll(() => s?.close());

  it("refuses a body over the configured limit, naming it, and the document states it", async () => {
    const r = await s.call(undefined, "POST", "/api/v1/transcribe", {
      url: `https://example.com/${"a".repeat(5000)}.mp3`,
    });
    expect(r.status).toBe(413);
    expect(r.body.error).toMatchObject({ code: "body_too_large", max_bytes: 4096 });
    const doc = (await (await fetch(`${s.base}/openapi.json`)).json()) as any;
    expect(doc.paths["/api/v1/transcribe"].post.responses["413"].description).toMatch(/4096 bytes/);
  });
});
