// Results links over real HTTP on loopback, with real transcripts of jfk.wav: an account
// transcript's page link (GET /transcripts/{id} and the transcript.completed webhook) is the site's
// /r/<token>, whose token opens the transcript at /web/api/v1/results/<token> for anyone holding it
// (text, timed lines, files, the recording); a changed token is 404 invalid_link, an expired one
// 410 link_expired; a free transcript opens the same way until retention takes its recording
// (media null) and its text (410 expired). A clipd serving no website links the plain HTML page.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { LinkSigner } from "../../facade/signing.js";
import { openApiServer, useJfkApiServer, type ApiServer } from "../helpers/api.js";
import { serveFile, startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";
import { WebClient } from "../helpers/web.js";
import { startReceiver } from "../helpers/webhook-receiver.js";

/** Polls GET /transcripts/{id} until it has ended. */
async function transcribed(s: ApiServer, key: string, id: string) {
  return waitFor(
    async () => {
      const r = await s.call(key, "GET", `/api/v1/transcripts/${id}`);
      return ["completed", "failed"].includes(r.body.status) ? r.body : undefined;
    },
    { what: "transcript completed", timeoutMs: 120_000, intervalMs: 250 },
  );
}

describe("results links", () => {
  let s: ApiServer;
  let media: TestHttpsServer;
  useJfkApiServer((x) => ({ s, media } = x));

  it("links an account transcript's page to /r/<token>, which opens it with its files and recording", async () => {
    const acc = await s.account();
    const rx = await startReceiver();
    try {
      const hook = await s.call(acc.live, "POST", "/api/v1/webhooks", {
        url: rx.path("/hook"),
        events: ["transcript.completed"],
      });
      expect(hook.status).toBe(201);
      const ordered = await s.call(acc.live, "POST", "/api/v1/transcripts", {
        url: media.url("/jfk.wav"),
        name: "JFK speech",
      });
      expect(ordered.status).toBe(202);
      const page = new URL(ordered.body.downloads.page);
      expect(page.origin).toBe(new URL(s.base).origin);
      expect(page.pathname).toMatch(/^\/r\/[\w-]+\.[\w-]+$/);
      const done = await transcribed(s, acc.live, ordered.body.id);
      expect(done.status).toBe("completed");
      const token = new URL(done.downloads.page).pathname.slice(3);

      // Nobody signed in: the token is the authority.
      const r = await new WebClient(s.base).call("GET", `/api/v1/results/${token}`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        kind: "account",
        id: done.id,
        name: "JFK speech",
        status: "completed",
        text: done.text,
        language: "en",
        duration: "00:11",
        word_count: done.word_count,
      });
      expect(r.body.segments.total).toBeGreaterThan(0);
      expect(
        r.body.segments.segments
          .map((x: any) => x.text)
          .join(" ")
          .split(/\s+/).length,
      ).toBe(done.text.trim().split(/\s+/).length);
      expect(Date.parse(r.body.expires_at) - Date.now()).toBeGreaterThan(6 * 86400_000);
      expect((await (await fetch(r.body.downloads.txt)).text()).trim()).toBe(done.text.trim());
      expect(await (await fetch(r.body.downloads.vtt)).text()).toMatch(/^WEBVTT/);
      expect(r.body.media.type).toBe("audio/wav");
      expect((await fetch(r.body.media.url, { headers: { range: "bytes=0-11" } })).status).toBe(206);
      // The site serves /r/<token> as its app.
      expect((await fetch(done.downloads.page)).headers.get("content-type")).toMatch(/^text\/html/);

      // The webhook's page link is a results link too.
      const receipt = await waitFor(() => rx.receipts.find((x) => x.path === "/hook"), {
        what: "transcript.completed delivered",
        timeoutMs: 60_000,
      });
      const event = JSON.parse(receipt.body);
      expect(event.type).toBe("transcript.completed");
      const hooked = new URL(event.data.downloads.page).pathname;
      expect(hooked).toMatch(/^\/r\//);
      expect((await new WebClient(s.base).call("GET", `/web/api/v1/results/${hooked.slice(3)}`)).body.id).toBe(done.id);

      // A changed token, a download token and an expired one.
      const [body, mac] = token.split(".");
      const forged = Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(body!, "base64url").toString()), key: `account:${randomUUID()}` }),
      ).toString("base64url");
      for (const bad of [
        `${forged}.${mac}`,
        `${body}.${mac!.slice(0, -2)}`,
        new URL(done.downloads.txt).pathname.split("/").pop()!,
      ]) {
        const refused = await new WebClient(s.base).call("GET", `/api/v1/results/${bad}`);
        expect(refused.status).toBe(404);
        expect(refused.body.error).toMatchObject({ code: "invalid_link", field: "token" });
      }
      const signer = await LinkSigner.create(s.app.db, s.app.config.server.signing_secret || undefined);
      const old = signer.sign({ k: "results", key: `account:${done.id}` }, -60).token;
      const expired = await new WebClient(s.base).call("GET", `/api/v1/results/${old}`);
      expect(expired.status).toBe(410);
      expect(expired.body.error.code).toBe("link_expired");
    } finally {
      await rx.close();
    }
  });

  it("opens a free transcript behind a results link, and says when its recording or text is gone", async () => {
    const sent = await s.call(undefined, "POST", "/api/v1/transcribe", { url: media.url("/jfk.wav") });
    expect(sent.status).toBe(202);
    const poll = new URL(sent.body.poll_url);
    const done = await waitFor(
      async () => {
        const r = await s.call(undefined, "GET", poll.pathname + poll.search);
        return r.body.status !== "processing" ? r.body : undefined;
      },
      { what: "free transcript", timeoutMs: 120_000, intervalMs: 250 },
    );
    expect(done.status).toBe("completed");
    const signer = await LinkSigner.create(s.app.db, s.app.config.server.signing_secret || undefined);
    const token = signer.sign({ k: "results", key: `free:${sent.body.id}` }, 3600).token;
    const open = () => new WebClient(s.base).call("GET", `/api/v1/results/${token}`);
    const r = await open();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      kind: "free",
      id: sent.body.id,
      name: null,
      status: "completed",
      text: done.text,
      word_count: done.word_count,
      language: "en",
    });
    expect(r.body.segments.total).toBeGreaterThan(0);
    expect((await (await fetch(r.body.downloads.srt)).text()).trim()).toBe(done.srt.trim());
    expect((await fetch(r.body.media.url, { headers: { range: "bytes=0-3" } })).status).toBe(206);
    // Links never outlast the results link (an hour here).
    expect(Date.parse(r.body.media.expires_at)).toBeLessThanOrEqual(Date.parse(r.body.expires_at) + 1000);

    // Retention: the recording goes first (media null), then the text (410 expired).
    await s.app.db.query(`update free_jobs set audio_deleted_at = now() where id = $1`, [sent.body.id]);
    expect((await open()).body.media).toBeNull();
    await s.app.db.query(`update free_jobs set status = 'expired', result = null where id = $1`, [sent.body.id]);
    const gone = await open();
    expect(gone.status).toBe(410);
    expect(gone.body.error).toMatchObject({ code: "expired", field: "token" });
    const unknown = await new WebClient(s.base).call(
      "GET",
      `/api/v1/results/${signer.sign({ k: "results", key: `free:${randomUUID()}` }, 60).token}`,
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
  });
});

describe("a clipd serving no website", () => {
  it("links a transcript's page to the plain HTML page of its text", async () => {
    const files = await startHttpsServer({ "/jfk.wav": serveFile(TEST_MEDIA.jfkWav, "audio/wav") });
    const off = await openApiServer("pglite", {
      web: { enabled: false },
      network: { allow_loopback: true, extra_ca: files.caPath },
    });
    try {
      const acc = await off.account();
      const ordered = await off.call(acc.live, "POST", "/api/v1/transcripts", { url: files.url("/jfk.wav") });
      const done = await transcribed(off, acc.live, ordered.body.id);
      expect(done.status).toBe("completed");
      expect(new URL(done.downloads.page).pathname).toMatch(/^\/api\/v1\/files\//);
      const page = await fetch(done.downloads.page);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await page.text()).toContain("<h1>jfk</h1>");
    } finally {
      await off.close();
      await files.close();
    }
  });
});
