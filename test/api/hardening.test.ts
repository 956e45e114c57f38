// Defects an outside probe found, each held to its fix over real HTTP on loopback: URL refusals
// name the field they came from, NUL bytes and lone surrogates are refused at validation (never a
// 500 from PostgreSQL), a webhook test records a redirect's real status.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { redirectTo, serveFile, startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { TEST_MEDIA } from "../helpers/media.js";

describe("hardening", () => {
  let media: TestHttpsServer;
  let t: ApiServer;

  beforeAll(async () => {
    media = await startHttpsServer({ "/jfk.wav": serveFile(TEST_MEDIA.jfkWav, "audio/wav") });
    t = await openApiServer("pglite", {
      network: { allow_loopback: true, extra_ca: media.caPath },
      free: { trust_proxy: true },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await media?.close();
  });

  it("a credentialed or malformed callback_url on the free API is refused naming callback_url", async () => {
    const withCredentials = media.url("/hook").replace("https://", "https://user:pw@");
    // A url whose host is unknown (or DNS unreachable) must not hide the callback_url's own fault.
    const urls = [media.url("/jfk.wav"), "https://no-such-host.clipd-probe-nowhere.net/a.mp3"];
    let n = 0;
    for (const url of urls) {
      for (const callback_url of [withCredentials, "https://hook.example/x", "http://127.0.0.1/x"]) {
        if (url !== urls[0] && callback_url.endsWith(".example/x")) continue; // both hosts wrong: either may be named
        const res = await t.call(
          undefined,
          "POST",
          "/api/v1/transcribe",
          { url, callback_url },
          { "x-forwarded-for": `10.9.0.${++n}` },
        );
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expect(res.body.error).toMatchObject({
          field: "callback_url",
          message: expect.stringContaining("callback_url"),
        });
      }
    }
  });

  it("a link whose path decodes to NUL or another control character is invalid_url naming its field", async () => {
    const { test } = await t.account();
    for (const path of ["/a%00b.mp3", "/a%0Ab.mp3", "/x/%1f.wav"]) {
      const transcript = await t.call(test, "POST", "/api/v1/transcripts", { url: media.url(path) });
      expect(transcript.status, JSON.stringify(transcript.body)).toBe(400);
      expect(transcript.body.error).toMatchObject({ code: "invalid_url", field: "url" });
      const episode = await t.call(test, "POST", "/api/v1/episodes", { source_url: media.url(path) });
      expect(episode.status, JSON.stringify(episode.body)).toBe(400);
      expect(episode.body.error).toMatchObject({ code: "invalid_url", field: "source_url" });
    }
  });

  it("NUL bytes and lone surrogates are refused at validation, naming the field, in body, query and path", async () => {
    const { live } = await t.account({ creditCents: 10_000, plan: true });
    const someId = "6f1c1f4e-1111-4222-8333-444455556666";
    const cases: Array<[string, string, unknown, string]> = [
      ["POST", "/api/v1/episodes", { name: "a\u0000b" }, "name"],
      ["POST", "/api/v1/episodes", { name: "ok", about: "lone \ud800 high" }, "about"],
      ["POST", "/api/v1/episodes", { file_name: "a\u0000.mp3" }, "file_name"],
      ["POST", "/api/v1/episodes", { name: "lone \udc00 low" }, "name"],
      ["POST", `/api/v1/episodes/${someId}/search`, { about: "x\u0000" }, "about"],
      ["POST", `/api/v1/episodes/${someId}/clips`, { clips: [1], hook_title: "\u0000" }, "hook_title"],
      ["POST", "/api/v1/transcripts", { url: media.url("/jfk.wav"), name: "\u0000" }, "name"],
      ["POST", "/api/v1/episodes", { ["na\u0000me"]: "x" }, "na\ufffdme"],
      ["GET", "/api/v1/transcribe/" + someId + "?token=a%00b", undefined, "token"],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await t.call(live, method, path, body === undefined ? undefined : JSON.stringify(body));
      expect(res.status, `${method} ${path} ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error, path).toMatchObject({
        code: "invalid_request",
        field,
        message: expect.stringMatching(/NUL|surrogate/),
      });
    }
    // A well-formed pair (an emoji) is fine.
    const emoji = await t.call(live, "POST", "/api/v1/episodes", { name: "clip \ud83c\udfa4" });
    expect(emoji.status, JSON.stringify(emoji.body)).toBe(202);
  });

  it("a body nested 20,000 levels deep answers 400, not a 500 from the text check", async () => {
    const deep = (n: number, inner: string) => "[".repeat(n) + inner + "]".repeat(n);
    const clean = await t.call(undefined, "POST", "/api/v1/transcribe/keys", `{"email":${deep(20_000, '"x"')}}`);
    expect(clean.status).toBe(400);
    expect(clean.body.error).toMatchObject({ code: "invalid_request", field: "email" });
    const withNul = await t.call(
      undefined,
      "POST",
      "/api/v1/transcribe/keys",
      `{"email":${deep(20_000, '"x\\u0000"')}}`,
    );
    expect(withNul.status).toBe(400);
    expect(withNul.body.error.field).toMatch(/^email\.0\.0\..{0,200}$/);
    const { live } = await t.account();
    const nested = await t.call(live, "POST", "/api/v1/episodes", `{"name":"ok","x":{"y":[1,{"z":"a\\u0000"}]}}`);
    expect(nested.body.error).toMatchObject({ code: "invalid_request", field: "x.y.1.z" });
  });

  it('a fault of the whole body (not JSON, not an object) names "body"', async () => {
    const { test } = await t.account();
    const bodies = [
      ["/api/v1/webhooks", "[]"],
      ["/api/v1/transcribe/keys", '"str"'],
      ["/api/v1/webhooks", "{"],
      ["/api/v1/transcribe/keys", "{'a':1}"],
    ] as const;
    for (const [path, body] of bodies) {
      const res = await t.call(test, "POST", path, body);
      expect(res.status, `${path} ${body}`).toBe(400);
      expect(res.body.error, `${path} ${body}`).toMatchObject({
        code: expect.stringMatching(/^(invalid_request|invalid_json)$/),
        field: "body",
      });
    }
  });

  it(
    "the operation core refuses NUL or a lone surrogate in a path parameter " +
      "or Idempotency-Key, whatever the transport",
    async () => {
      // HTTP itself cannot carry these (h3 leaves %00 encoded in paths; header values are Latin-1),
      // so the core is called as another transport (the MCP tool server) would call it.
      const { prepareOperation } = await import("../../facade/core/run-operation.js");
      const { OPERATIONS } = await import("../../facade/app.js");
      const { RateLimiter } = await import("../../facade/ratelimit.js");
      const { live } = await t.account();
      const services = {
        config: { ...t.app.config, server: { ...t.app.config.server, ops_token: "x" } },
        accounts: t.app.accounts,
        rates: new RateLimiter(t.app.db, { limit: 1000, windowSeconds: 60 }),
        log: t.app.log,
      } as any;
      const caller = (bearer: string, idempotencyKey?: string) => ({
        surface: "chat" as const,
        bearer,
        presentedCredentials: true,
        clientAddr: "127.0.0.1",
        idempotencyKey,
      });
      const getRun = prepareOperation(OPERATIONS.find((o) => o.id === "getRun")!, services);
      expect(await getRun({ params: { id: "a\u0000" }, query: {} }, caller("x"))).toMatchObject({
        status: 400,
        body: { error: { code: "invalid_request", field: "id" } },
      });
      const create = prepareOperation(OPERATIONS.find((o) => o.id === "createEpisode")!, services);
      for (const key of ["k\u0000", "k\ud800"]) {
        const answer = await create({ params: {}, query: {}, readBody: async () => ({}) }, caller(live, key));
        expect(answer).toMatchObject({
          status: 400,
          body: { error: { code: "invalid_request", field: "Idempotency-Key" } },
        });
      }
    },
  );

  it(
    "a webhook test whose address redirects records the real 3xx status, and " + "the redirect is not followed",
    async () => {
      const { live } = await t.account();
      let followed = 0;
      media.route("/landing", (_req, res) => void (followed++, res.end("ok")));
      for (const [i, code] of [302, 301, 307].entries()) {
        media.route(`/moved${i}`, redirectTo(media.url("/landing"), code));
        const hook = await t.call(live, "POST", "/api/v1/webhooks", { url: media.url(`/moved${i}`) });
        expect(hook.status, JSON.stringify(hook.body)).toBe(201);
        const res = await t.call(live, "POST", `/api/v1/webhooks/${hook.body.id}/test`, {});
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ delivered: false, status: code });
      }
      expect(followed).toBe(0);
    },
  );
});
