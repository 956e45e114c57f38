import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import fetchSource from "../../plugins/fetch-source/index.js";
import { StageError } from "../../daemon/engine/stage.js";
import { redirectTo, serveFile, startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { makeVideo, TEST_MEDIA } from "../helpers/media.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

let server: TestHttpsServer;
let ctx: TestStageCtx | undefined;
let jfkBytes: number;

beforeAll(async () => {
  jfkBytes = (await stat(TEST_MEDIA.jfkMp3)).size;
  const video = await makeVideo({ seconds: 1 });
  server = await startHttpsServer({
    "/jfk.mp3": serveFile(TEST_MEDIA.jfkMp3, "audio/mpeg"),
    "/download": (_req, res) => {
      res.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-disposition": `attachment; filename="Inaugural Address"`,
      });
      createReadStream(TEST_MEDIA.jfkMp3).pipe(res);
    },
    "/chunked.mp3": serveFile(TEST_MEDIA.jfkMp3, "audio/mpeg", { contentLength: false }),
    "/clip": serveFile(video, "video/mp4"),
    "/page": (_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<!DOCTYPE html><html><body>Watch my podcast!</body></html>");
    },
    "/lying.mp4": (_req, res) => {
      res.writeHead(200, { "content-type": "video/mp4" });
      res.end("<!doctype html><html><head><title>Sign in</title></head></html>");
    },
    "/octet-page": (_req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(Buffer.from("\u0000\u0001binary junk that is not media".repeat(40)));
    },
    "/gone": (_req, res) => {
      res.statusCode = 404;
      res.end("no");
    },
    "/busy": (_req, res) => {
      res.statusCode = 503;
      res.end("later");
    },
    "/to-jfk": redirectTo("/jfk.mp3"),
    "/to-metadata": redirectTo("https://169.254.169.254/latest/meta-data/"),
  });
});
afterAll(() => server.close());
afterEach(async () => {
  await ctx?.cleanup();
  ctx = undefined;
});

async function run(input: Record<string, unknown>, options: Record<string, unknown> = {}) {
  ctx = await makeStageCtx(options, { config: { network: { allow_loopback: true, extra_ca: server.caPath } } });
  return fetchSource.run(input, ctx);
}

async function runError(input: Record<string, unknown>, options: Record<string, unknown> = {}): Promise<StageError> {
  const err = await run(input, options).then(
    () => undefined,
    (e) => e,
  );
  expect(err).toBeInstanceOf(StageError);
  return err;
}

describe("fetch-source over https", () => {
  it("downloads a direct media link into runs/<runId>/source<ext>", async () => {
    const url = server.url("/jfk.mp3");
    const { source } = await run({ source_url: url });
    expect(source).toEqual({
      key: `runs/${ctx!.runId}/source.mp3`,
      name: "jfk.mp3",
      bytes: jfkBytes,
      content_type: "audio/mpeg",
      url,
    });
    expect(await ctx!.storage.read(source.key)).toEqual(await readFile(TEST_MEDIA.jfkMp3));
    expect(await ctx!.storage.exists(`runs/${ctx!.runId}/source.part`)).toBe(false);
    expect(ctx!.progressCalls.at(-1)?.[0]).toBe(100);
  });

  it("follows redirects and takes names from Content-Disposition", async () => {
    expect((await run({ source_url: server.url("/to-jfk") })).source.bytes).toBe(jfkBytes);
    const { source } = await run({ source_url: server.url("/download") });
    expect(source).toMatchObject({
      key: `runs/${ctx!.runId}/source.mp3`,
      name: "Inaugural Address.mp3",
      bytes: jfkBytes,
    });
  });

  it("downloads video and chunked responses", async () => {
    expect((await run({ source_url: server.url("/clip") })).source).toMatchObject({
      key: `runs/${ctx!.runId}/source.mp4`,
      name: "clip.mp4",
    });
    expect((await run({ source_url: server.url("/chunked.mp3") })).source.bytes).toBe(jfkBytes);
  });

  it("refuses a web page", async () => {
    const err = await runError({ source_url: server.url("/page") });
    expect(err.code).toBe("unreadable");
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/is not a direct link to a media file \(got text\/html\)/);
  });

  it("refuses an HTML page labelled as video, and unknown bytes labelled octet-stream", async () => {
    const lying = await runError({ source_url: server.url("/lying.mp4") });
    expect(lying.code).toBe("unreadable");
    expect(lying.message).toContain("got text/html");
    expect((await runError({ source_url: server.url("/octet-page") })).code).toBe("unreadable");
    expect(await ctx!.storage.exists(`runs/${ctx!.runId}/source.part`)).toBe(false);
  });

  it("refuses files over max_bytes, announced or not", async () => {
    const announced = await runError({ source_url: server.url("/jfk.mp3") }, { max_bytes: 50_000 });
    expect(announced.code).toBe("too_big");
    expect(announced.details).toMatchObject({ max_bytes: 50_000, bytes: jfkBytes });
    const streamed = await runError({ source_url: server.url("/chunked.mp3") }, { max_bytes: 50_000 });
    expect(streamed.code).toBe("too_big");
    expect(await ctx!.storage.exists(`runs/${ctx!.runId}/source.part`)).toBe(false);
  });

  it("maps HTTP failures, SSRF redirects and bad links", async () => {
    const gone = await runError({ source_url: server.url("/gone") });
    expect([gone.code, gone.retryable]).toEqual(["fetch_failed", false]);
    const busy = await runError({ source_url: server.url("/busy") });
    expect([busy.code, busy.retryable]).toEqual(["fetch_failed", true]);
    expect((await runError({ source_url: server.url("/to-metadata") })).code).toBe("forbidden_address");
    expect((await runError({ source_url: "ftp://example.com/a.mp3" })).code).toBe("bad_url");
  });

  it("refuses loopback unless the test switch is on", async () => {
    ctx = await makeStageCtx({}, { config: { network: { extra_ca: server.caPath } } });
    const err = await fetchSource.run({ source_url: server.url("/jfk.mp3", "localhost") }, ctx).then(
      () => undefined,
      (e) => e,
    );
    expect(err).toBeInstanceOf(StageError);
    expect(err.code).toBe("forbidden_address");
  });

  it("times out", async () => {
    server.route("/stall", (_req, res) => {
      res.writeHead(200, { "content-type": "audio/mpeg" });
      res.write(Buffer.alloc(1024, 0xff));
    });
    const err = await runError({ source_url: server.url("/stall") }, { timeout_seconds: 0.5 });
    expect([err.code, err.retryable]).toEqual(["source_timeout", true]);
    expect(err.details).toEqual({ timeout_seconds: 0.5 });
  });
});

describe("fetch-source with an upload", () => {
  it("checks the stored file and returns it unchanged", async () => {
    ctx = await makeStageCtx();
    await ctx.storage.putFile("uploads/u1/talk.mp3", TEST_MEDIA.jfkMp3);
    const { source } = await fetchSource.run({ upload: { key: "uploads/u1/talk.mp3", name: "My Talk.mp3" } }, ctx);
    expect(source).toEqual({ key: "uploads/u1/talk.mp3", name: "My Talk.mp3", bytes: jfkBytes });
  });

  it("refuses a missing or empty upload, and a run with no source", async () => {
    ctx = await makeStageCtx();
    await ctx.storage.write("uploads/u2/empty.mp3", "");
    const fail = (input: Record<string, unknown>) =>
      fetchSource.run(input, ctx!).then(
        () => undefined,
        (e) => e,
      );
    expect((await fail({ upload: { key: "uploads/u2/empty.mp3", name: "empty.mp3" } })).code).toBe("unreadable");
    expect((await fail({ upload: { key: "uploads/u2/none.mp3", name: "none.mp3" } })).code).toBe("not_found");
    expect((await fail({ upload: { key: "../etc/passwd", name: "x.mp3" } })).code).toBe("bad_input");
    expect((await fail({})).code).toBe("bad_input");
  });
});
