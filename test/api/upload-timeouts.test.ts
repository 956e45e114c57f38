// Upload PUTs are bounded by idleness and size, not wall time (issue 27, item 6). With the body
// timeout of ordinary requests shortened to 1 s and the upload idle timeout to 2 s: a whole-file
// PUT that trickles its bytes for longer than 1 s is stored; one that stalls is cut off with 408
// upload_idle; an ordinary request whose body stalls is cut off with 408 request_timeout.
import http from "node:http";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { TEST_MEDIA } from "../helpers/media.js";

interface Sent {
  status: number;
  body: string;
}

/** A PUT/POST whose body is written by `feed` on a raw request (chunked: no Content-Length unless given). */
function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  feed: (req: http.ClientRequest) => Promise<void>,
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", reject);
    });
    req.on("error", reject);
    feed(req).catch(reject);
  });
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("request timeouts", () => {
  let t: ApiServer;
  let live: string;
  beforeAll(async () => {
    t = await openApiServer("pglite", { server: { request_body_seconds: 1, upload_idle_seconds: 2 } });
    live = (await t.account({ creditCents: 100_000 })).live;
  });
  afterAll(() => t?.close());

  const uploadUrl = async (name: string) => {
    const r = await t.call(live, "POST", "/api/v1/episodes", { name, file_name: "jfk.wav" });
    expect(r.status).toBe(202);
    return r.body.upload as { url: string; headers: Record<string, string> };
  };

  it("stores a whole-file PUT that trickles in for longer than the request timeout", async () => {
    const { url, headers } = await uploadUrl("trickle");
    const file = await readFile(TEST_MEDIA.jfkWav);
    const pieces = 8;
    const size = Math.ceil(file.length / pieces);
    const started = Date.now();
    const res = await send(url, "PUT", headers, async (req) => {
      for (let i = 0; i < pieces; i++) {
        req.write(file.subarray(i * size, (i + 1) * size));
        // 8 pieces 250 ms apart: about 2 s in all, twice the 1 s body timeout, never 2 s idle.
        if (i < pieces - 1) await pause(250);
      }
      req.end();
    });
    expect(Date.now() - started).toBeGreaterThan(1000);
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ bytes: file.length });
  });

  it("cuts off a PUT that stalls longer than the idle timeout, with 408 upload_idle", async () => {
    const { url, headers } = await uploadUrl("stall");
    const file = await readFile(TEST_MEDIA.jfkWav);
    const res = await send(url, "PUT", headers, async (req) => {
      req.write(file.subarray(0, 4096)); // then nothing, and the request is never ended
    }).catch((err: Error) => ({ status: 0, body: err.message }));
    expect(res.status, res.body).toBe(408);
    expect(JSON.parse(res.body).error).toMatchObject({ code: "upload_idle", idle_seconds: 2 });
  });

  it("cuts off an ordinary request whose body does not arrive in time, with 408 request_timeout", async () => {
    const res = await send(
      `${t.base}/api/v1/episodes`,
      "POST",
      { authorization: `Bearer ${live}`, "content-type": "application/json", "content-length": "200" },
      async (req) => {
        req.write('{"name": "slow'); // 200 bytes announced, 14 sent
      },
    ).catch((err: Error) => ({ status: 0, body: err.message }));
    expect(res.status, res.body).toBe(408);
    expect(JSON.parse(res.body).error).toMatchObject({ code: "request_timeout", limit: "request_body_seconds" });
  });
});
