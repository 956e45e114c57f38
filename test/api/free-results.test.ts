// The free transcription API's results beyond the everyday case, over real HTTP on loopback:
// - a three-hour episode whose text, SRT and VTT total over 1 MB comes back as signed links, at the
//   default inline limit;
// - the kept recording comes as a signed link for a player, until the audio retention deletes it;
// - speech detected as another language is reported, with a note that English is supported;
// - a file whose server hides its length is measured after download, and fails with the tier's code;
//   an endless one is cut at the size limit.
// The OpenAI-compatible engine runs against a FAKE server (test/helpers/fake-openai.ts): the hosted
// API can't run here. It "hears" a script at 3.5 words a second over each real uploaded chunk.
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { startFakeOpenAI, type FakeOpenAI, type FakeSpeechOptions } from "../helpers/fake-openai.js";
import { serveFile, startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { makeToneMp3, TEST_MEDIA } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";

const EPISODE_SECONDS = 3 * 3600;
const MAX_BYTES = 20 * 1024 * 1024;
const ENGLISH = (
  "welcome back everyone today we are talking with an independent developer " +
  "about building software products carefully and sustainably without burning " +
  "out or losing the original excitement that started everything"
).split(" ");
const FRENCH = (
  "bonjour à tous aujourd'hui nous parlons avec une développeuse indépendante " +
  "de la façon de construire des logiciels avec soin sans perdre l'enthousiasme du début"
).split(" ");

describe("free transcription API results: links over 1 MB, detected language, late length checks", () => {
  let media: TestHttpsServer;
  let fake: FakeOpenAI;
  let t: ApiServer;
  const speech: FakeSpeechOptions = { wordsPerSecond: 3.5, script: ENGLISH, language: "english" };

  beforeAll(async () => {
    const [episode, long11] = await Promise.all([makeToneMp3(EPISODE_SECONDS), makeToneMp3(660)]);
    media = await startHttpsServer({
      "/episode-3h.mp3": serveFile(episode, "audio/mpeg"),
      "/jfk.wav": serveFile(TEST_MEDIA.jfkWav, "audio/wav"),
      // No Content-Length and no Range support: the length is only known after download.
      "/hidden-length.mp3": (_req, res) => {
        res.setHeader("content-type", "audio/mpeg");
        createReadStream(long11).pipe(res);
      },
      // No length, and no end: an MP3 repeated until the client hangs up.
      "/endless.mp3": async (req, res) => {
        const mp3 = await readFile(TEST_MEDIA.jfkMp3);
        res.setHeader("content-type", "audio/mpeg");
        let open = true;
        req.socket.on("close", () => (open = false));
        while (open && !res.destroyed)
          if (!res.write(mp3)) await new Promise((r) => res.once("drain", r).once("close", r));
      },
    });
    fake = await startFakeOpenAI({ speech });
    t = await openApiServer("pglite", {
      network: { allow_loopback: true, extra_ca: media.caPath },
      openai: { api_key: "sk-fake-for-tests", base_url: fake.baseURL, retries: 0 },
      // An operator who allows episodes of up to four hours with a key; the inline limit stays 1 MB.
      // The size limit is lowered so that an endless download is cut quickly.
      free: { trust_proxy: true, max_seconds_key: 4 * 3600, max_bytes: MAX_BYTES },
    });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await fake?.close();
    await media?.close();
  });

  const submit = (key: string | undefined, ip: string, url: string) =>
    t.call(key, "POST", "/api/v1/transcribe", { url: media.url(url) }, { "x-forwarded-for": ip });
  const newKey = async () =>
    (
      await t.call(undefined, "POST", "/api/v1/transcribe/keys", {
        email: `r${Math.random().toString(16).slice(2, 8)}@example.com`,
      })
    ).body.key as string;
  async function waitDone(pollUrl: string, timeoutMs = 60_000) {
    const u = new URL(pollUrl);
    // Stops at the first error answer too, so that it fails the test at once.
    const res = await waitFor(
      async () => {
        const res = await t.call(undefined, "GET", u.pathname + u.search);
        return res.status !== 200 || res.body.status !== "processing" ? res : undefined;
      },
      { what: `${pollUrl} to finish processing`, timeoutMs, intervalMs: 500 },
    );
    expect(res.status).toBe(200);
    return res.body;
  }

  it("gives a three-hour episode's 1 MB+ results as signed links, with a note", async () => {
    const res = await submit(await newKey(), "198.51.100.20", "/episode-3h.mp3");
    expect(res.status).toBe(202);
    const done = await waitDone(res.body.poll_url, 400_000);
    expect(done).toMatchObject({ status: "completed", language: "en", language_source: "engine" });
    expect(done.duration_seconds).toBeCloseTo(EPISODE_SECONDS, -1);
    expect(done.text ?? done.srt ?? done.vtt).toBeUndefined();
    expect(done.note).toMatch(/bytes .*links/);
    const bodies = await Promise.all(
      [done.text_url, done.srt_url, done.vtt_url].map(async (url: string) => {
        expect(url).toMatch(/\/api\/v1\/files\/[\w-]+\.[\w-]+$/);
        const r = await fetch(url);
        expect(r.status).toBe(200);
        return Buffer.from(await r.arrayBuffer());
      }),
    );
    const total = bodies.reduce((n, b) => n + b.length, 0);
    expect(total).toBeGreaterThanOrEqual(1024 * 1024);
    expect(done.note).toContain(String(total));
    const [txt, srt, vtt] = bodies.map((b) => b.toString("utf8"));
    expect(txt!.split(/\s+/).filter(Boolean)).toHaveLength(done.word_count);
    expect(done.word_count).toBeGreaterThan(EPISODE_SECONDS * 3);
    expect(srt).toMatch(/^1\n00:00:00,\d{3} --> /);
    expect(srt).toMatch(/\n02:59:\d\d,\d{3} --> /); // cues run to the end of the episode
    expect(vtt).toMatch(/^WEBVTT/);
    // A signed link with its signature altered is refused.
    const dot = (done.text_url as string).lastIndexOf(".") + 1;
    const forged =
      done.text_url.slice(0, dot) + (done.text_url[dot] === "A" ? "B" : "A") + done.text_url.slice(dot + 1);
    expect((await fetch(forged)).status).toBeGreaterThanOrEqual(400);
  }, 420_000);

  it("links the kept recording for a player until the audio retention deletes it (audio_url)", async () => {
    const res = await submit(await newKey(), "198.51.100.22", "/jfk.wav");
    expect(res.status).toBe(202);
    const done = await waitDone(res.body.poll_url);
    expect(done.status).toBe("completed");
    expect(done.audio_url).toMatch(/\/api\/v1\/files\/[\w-]+\.[\w-]+$/);
    // It expires when the retention deletes the file: 7 days after the job was made.
    const made = (await t.app.db.query(`select created_at from free_jobs where id = $1`, [done.id])).rows[0].created_at;
    const due = new Date(made).getTime() + 7 * 86_400_000;
    expect(Math.abs(Date.parse(done.audio_expires_at) - due)).toBeLessThan(2000);
    const ranged = await fetch(done.audio_url, { headers: { range: "bytes=0-11" } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get("content-type")).toMatch(/^audio\//);
    expect(
      Buffer.from(await ranged.arrayBuffer())
        .subarray(0, 4)
        .toString("latin1"),
    ).toBe("RIFF");
    // Once the retention has deleted the recording, the answer offers no player link.
    await t.app.db.query(`update free_jobs set audio_deleted_at = now() where id = $1`, [done.id]);
    const u = new URL(res.body.poll_url);
    const after = (await t.call(undefined, "GET", u.pathname + u.search)).body;
    expect(after.status).toBe("completed");
    expect(after.audio_url).toBeUndefined();
  });

  it("reports speech detected as another language, and says English is the supported one", async () => {
    Object.assign(speech, { script: FRENCH, language: "french" });
    try {
      const res = await submit(await newKey(), "198.51.100.21", "/jfk.wav");
      expect(res.status).toBe(202);
      const done = await waitDone(res.body.poll_url);
      expect(done).toMatchObject({ status: "completed", language: "fr", language_source: "engine" });
      expect(done.language_note).toMatch(/English is the supported language/);
      expect(done.text).toContain("aujourd'hui");
      // Without a language the server was asked to detect it.
      expect(fake.requests.at(-1)!.fields.language).toBeUndefined();
    } finally {
      Object.assign(speech, { script: ENGLISH, language: "english" });
    }
  }, 90_000);

  /** Submits an unmeasured file without a key; returns the error its failed job answers with. */
  async function failedAtNoCost(ip: string, url: string) {
    const res = await submit(undefined, ip, url);
    expect(res.status).toBe(202); // unmeasured: admitted once a day
    const done = await waitDone(res.body.poll_url);
    expect(done.status).toBe("failed");
    // A job that failed before transcription costs nothing.
    const { rows } = await t.app.db.query(`select cost_cents from free_jobs where id = $1`, [res.body.id]);
    expect(Number(rows[0].cost_cents)).toBe(0);
    return done.error;
  }

  it("fails a file that proves too long after download with the tier's code (too_long_anon)", async () => {
    const error = await failedAtNoCost("198.51.100.22", "/hidden-length.mp3");
    expect(error).toMatchObject({ code: "too_long_anon", max_duration_seconds: 600 });
    expect(error.duration_seconds).toBeGreaterThan(640);
  }, 90_000);

  it("cuts an endless download at the size limit: the job fails too_big, and costs nothing", async () => {
    expect(await failedAtNoCost("198.51.100.23", "/endless.mp3")).toMatchObject({
      code: "too_big",
      max_bytes: MAX_BYTES,
    });
  }, 90_000);
});
