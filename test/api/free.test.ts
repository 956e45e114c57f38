// The free transcription API (/api/v1/transcribe) over real HTTP on loopback: every refusal code,
// with real files served by a local https server, the happy path through the real transcript
// pipeline (pocketsphinx on jfk.wav), callbacks, keys, the budget and the retention job.
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FREE_RETENTION_QUEUE } from "../../daemon/free/janitor.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";
import { serveFile, startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { makeSilence, makeToneMp3, TEST_MEDIA } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";

describe.each(testBackends())("free transcription API on %s", (backend) => {
  let media: TestHttpsServer;
  let hooks: Receiver;
  let t: ApiServer;
  const free = () => t.app.config.free as Record<string, any>;
  let kept: { id: string; poll_url: string } | undefined;

  beforeAll(async () => {
    const [long11, long91, silence3, silence20] = await Promise.all([
      makeToneMp3(660),
      makeToneMp3(5460),
      makeSilence(3),
      makeSilence(20),
    ]);
    const jfkMp3 = await readFile(TEST_MEDIA.jfkMp3);
    const head = Buffer.concat(Array.from({ length: Math.ceil((300 * 1024) / jfkMp3.length) }, () => jfkMp3));
    media = await startHttpsServer({
      "/jfk.wav": serveFile(TEST_MEDIA.jfkWav, "audio/wav"),
      "/long11.mp3": serveFile(long11, "audio/mpeg"),
      "/long91.mp3": serveFile(long91, "audio/mpeg"),
      "/silence3.wav": serveFile(silence3, "audio/wav"),
      // No Content-Length and no Range support: the length cannot be read.
      "/chunked.wav": (_req, res) => {
        res.setHeader("content-type", "audio/wav");
        createReadStream(silence20).pipe(res);
      },
      // Claims 700 MB; sends the start of a real MP3.
      "/huge.mp3": (_req, res) => {
        res.writeHead(200, { "content-type": "audio/mpeg", "content-length": String(700 * 1024 * 1024) });
        res.write(head);
      },
      "/page.html": (_req, res) => {
        res.setHeader("content-type", "text/html; charset=utf-8");
        res.end(
          "<!doctype html><html><head><title>An episode</title></head><body><audio src=x.mp3></audio></body></html>",
        );
      },
    });
    hooks = await startReceiver();
    t = await openApiServer(backend, {
      network: { allow_loopback: true, extra_ca: media.caPath },
      transcribe: { engine: "pocketsphinx" },
      free: { trust_proxy: true, callback_time_scale: 0.01 },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await media?.close();
    await hooks?.close();
  });

  const from = (ip: string) => ({ "x-forwarded-for": ip });
  const submit = (key: string | undefined, ip: string, url: string, extra: Record<string, unknown> = {}) =>
    t.call(key, "POST", "/api/v1/transcribe", { url: media.url(url), ...extra }, from(ip));
  const newKey = async (email = `u${Math.random().toString(16).slice(2, 8)}@example.com`) => {
    const res = await t.call(undefined, "POST", "/api/v1/transcribe/keys", { email });
    expect(res.status).toBe(201);
    return res.body.key as string;
  };
  const poll = (pollUrl: string) => t.call(undefined, "GET", new URL(pollUrl).pathname + new URL(pollUrl).search);
  async function waitDone(pollUrl: string) {
    // Every "processing" answer says how long it has run and when to ask again; the wait stops at
    // the first answer that is an error, is done, or lacks those, so that it fails the test at once.
    const progress = { elapsed_seconds: expect.any(Number), poll_after_seconds: expect.any(Number) };
    const res = await waitFor(
      async () => {
        const res = await poll(pollUrl);
        const processing = res.status === 200 && res.body.status === "processing";
        return processing &&
          typeof res.body.elapsed_seconds === "number" &&
          typeof res.body.poll_after_seconds === "number"
          ? undefined
          : res;
      },
      { what: `${pollUrl} to finish processing`, timeoutMs: 150_000, intervalMs: 300 },
    );
    expect(res.status).toBe(200);
    if (res.body.status === "processing") expect(res.body).toMatchObject(progress);
    return res.body;
  }
  const jobCount = async () => (await t.app.db.query(`select count(*)::int as n from free_jobs`)).rows[0].n as number;

  it("issues keys (3 a day per email), revokes them at once, and keeps free and account keys apart", async () => {
    const email = `k${Date.now()}@example.com`;
    const keys = [await newKey(email), await newKey(email.toUpperCase()), await newKey(email)];
    expect(keys.every((k) => /^svc_free_[a-f0-9]{40}$/.test(k))).toBe(true);
    const fourth = await t.call(undefined, "POST", "/api/v1/transcribe/keys", { email });
    expect(fourth.status).toBe(429);
    expect(fourth.body.error).toMatchObject({ code: "key_limit", limit: 3, resets_at: expect.any(String) });
    const stored = await t.app.db.query(`select fingerprint from free_keys where email = $1`, [email]);
    expect(stored.rows.map((r: any) => r.fingerprint)).not.toContain(keys[0]);

    const revoked = await t.call(keys[0], "DELETE", "/api/v1/transcribe/keys");
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked).toBe(true);
    expect((await submit(keys[0], "198.51.100.1", "/silence3.wav")).body.error).toMatchObject({ code: "bad_key" });
    expect((await t.call(keys[0], "DELETE", "/api/v1/transcribe/keys")).status).toBe(401);

    const unknown = await submit(`svc_free_${"0".repeat(40)}`, "198.51.100.1", "/silence3.wav");
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe("bad_key");
    const acc = await t.account();
    const accountKey = await submit(acc.live, "198.51.100.1", "/silence3.wav");
    expect(accountKey.status).toBe(401);
    expect(accountKey.body.error.code).toBe("bad_key");
    const onAccountApi = await t.call(keys[1], "GET", "/api/v1/me");
    expect(onAccountApi.status).toBe(401);
    expect(await jobCount()).toBe(0);
  });

  it("measures before counting: too_long_anon, too_long, too_big and unreadable leave no trace", async () => {
    const anon = await submit(undefined, "198.51.100.2", "/long11.mp3");
    expect(anon.status).toBe(413);
    expect(anon.body.error).toMatchObject({ code: "too_long_anon", max_duration_seconds: 600 });
    expect(anon.body.error.duration_seconds).toBeGreaterThan(640);
    expect(anon.body.error.duration_seconds).toBeLessThan(680);
    // Only the first few hundred kilobytes were read.
    expect(media.requests.filter((p) => p === "/long11.mp3")).toHaveLength(1);

    const key = await newKey();
    const long = await submit(key, "198.51.100.2", "/long91.mp3");
    expect(long.status).toBe(413);
    expect(long.body.error).toMatchObject({ code: "too_long", max_duration_seconds: 5400 });
    expect(long.body.error.duration_seconds).toBeCloseTo(5460, -1);

    const big = await submit(key, "198.51.100.2", "/huge.mp3");
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({
      code: "too_big",
      max_bytes: 600 * 1024 * 1024,
      size_bytes: 700 * 1024 * 1024,
    });

    const page = await submit(undefined, "198.51.100.2", "/page.html");
    expect(page.status).toBe(400);
    expect(page.body.error.code).toBe("unreadable");
    expect(await jobCount()).toBe(0);
  });

  it("transcribes with a key: inline results; callback signed and retried; unmeasured and daily limits", async () => {
    const key = await newKey();
    const ip = "198.51.100.3";
    // Unmeasured (no Content-Length, no Range): one a day. It is silence, so it completes as no_speech.
    const unmeasured = await submit(key, ip, "/chunked.wav");
    expect(unmeasured.status).toBe(202);
    const again = await submit(key, ip, "/chunked.wav");
    expect(again.status).toBe(429);
    expect(again.body.error).toMatchObject({ code: "unmeasured_limit", resets_at: expect.any(String) });

    const cbUrl = hooks.path("/cb/jfk", [500, 200]);
    const res = await submit(key, ip, "/jfk.wav", { callback_url: cbUrl });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      id: expect.any(String),
      poll_url: expect.stringContaining(`/api/v1/transcribe/${res.body.id}?token=`),
      callback_secret: expect.stringMatching(/^whsec_/),
    });
    hooks.secret("/cb/jfk", res.body.callback_secret);
    kept = res.body;

    const daily = await submit(key, ip, "/silence3.wav");
    expect(daily.status).toBe(429);
    expect(daily.body.error.code).toBe("daily_limit");
    expect(Date.parse(daily.body.error.resets_at)).toBeGreaterThan(Date.now());

    expect((await t.call(undefined, "GET", `/api/v1/transcribe/${res.body.id}`)).status).toBe(404);
    expect((await t.call(undefined, "GET", `/api/v1/transcribe/${res.body.id}?token=nope`)).status).toBe(404);

    const done = await waitDone(res.body.poll_url);
    // PocketSphinx has an English model only: the language is the model's, and says so.
    expect(done).toMatchObject({ id: res.body.id, status: "completed", language: "en", language_source: "model" });
    expect(done.language_note).toBeUndefined();
    expect(done.code).toBeUndefined();
    expect(done.duration_seconds).toBeCloseTo(11, 0);
    expect(done.word_count).toBeGreaterThan(10);
    expect(done.text.toLowerCase()).toContain("country");
    expect(done.srt).toMatch(/^1\n00:00:\d\d,\d{3} --> /);
    expect(done.vtt).toMatch(/^WEBVTT/);
    expect(done.text_url).toBeUndefined();

    await waitFor(() => hooks.receipts.filter((r) => r.path === "/cb/jfk").length >= 2, {
      what: "the callback and its retry",
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    const receipts = hooks.receipts.filter((r) => r.path === "/cb/jfk");
    expect(receipts.map((r) => r.answered)).toEqual([500, 200]);
    expect(receipts.every((r) => r.verified)).toBe(true);
    expect(receipts[0]!.id).toBe(receipts[1]!.id);
    const payload = JSON.parse(receipts[1]!.body);
    expect(payload).toMatchObject({
      type: "transcription.completed",
      data: { id: res.body.id, status: "completed", language: "en" },
    });
    expect(payload.data.text).toBe(done.text);
    // Both attempts are recorded by the one courier, in the attempts table webhooks use too.
    await expect
      .poll(
        async () =>
          (
            await t.app.db.query(
              `select d.status, a.attempt, a.status_code from deliveries d join delivery_attempts ` +
                `a on a.delivery_id = d.id where d.id = $1 order by a.attempt`,
              [receipts[0]!.id],
            )
          ).rows,
        { timeout: 10_000 },
      )
      .toEqual([
        { status: "delivered", attempt: 1, status_code: 500 },
        { status: "delivered", attempt: 2, status_code: 200 },
      ]);

    const silent = await waitDone(unmeasured.body.poll_url);
    expect(silent).toMatchObject({ status: "completed", code: "no_speech", word_count: 0, text: "" });
  }, 200_000);

  it("allows one file a day per client address without a key (X-Forwarded-For trusted by config)", async () => {
    const first = await submit(undefined, "198.51.100.4", "/silence3.wav");
    expect(first.status).toBe(202);
    expect(first.body.callback_secret).toBeUndefined();
    const second = await submit(undefined, "198.51.100.4", "/silence3.wav");
    expect(second.status).toBe(429);
    expect(second.body.error).toMatchObject({ code: "anon_daily_limit", resets_at: expect.any(String) });
    const done = await waitDone(first.body.poll_url);
    expect(done).toMatchObject({ status: "completed", code: "no_speech" });
  }, 60_000);

  it("refuses at the budget ceiling, and at the no-key share while a key still works", async () => {
    const before = await jobCount();
    free().monthly_budget_cents = 0;
    try {
      const key = await newKey();
      const ceiling = await submit(key, "198.51.100.5", "/silence3.wav");
      expect(ceiling.status).toBe(503);
      expect(ceiling.body.error).toMatchObject({ code: "ceiling" });
      expect(Date.parse(ceiling.body.error.resets_at)).toBeGreaterThan(Date.now());
      free().monthly_budget_cents = 100_000;
      free().anon_share = 0;
      const anon = await submit(undefined, "198.51.100.6", "/silence3.wav");
      expect(anon.status).toBe(503);
      expect(anon.body.error).toMatchObject({ code: "anon_ceiling", resets_at: expect.any(String) });
      expect(await jobCount()).toBe(before);
      const keyed = await submit(key, "198.51.100.6", "/silence3.wav");
      expect(keyed.status).toBe(202);
      await waitDone(keyed.body.poll_url);
    } finally {
      delete free().monthly_budget_cents;
      delete free().anon_share;
    }
  }, 60_000);

  it("lists the free API in /openapi.json", async () => {
    const doc = await (await fetch(`${t.base}/openapi.json`)).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/api/v1/transcribe", "/api/v1/transcribe/{id}", "/api/v1/transcribe/keys"]),
    );
    expect(Object.keys(doc.paths["/api/v1/transcribe"].post.responses)).toEqual(
      expect.arrayContaining(["202", "400", "401", "413", "429", "503"]),
    );
  });

  it("deletes audio after 7 days and text after 30 by the daily scheduled job (clock moved in config)", async () => {
    const schedules = await t.app.queue.boss.getSchedules();
    expect(schedules.map((s: any) => s.name)).toContain(FREE_RETENTION_QUEUE);
    const { rows } = await t.app.db.query(`select id, audio_key from free_jobs where id = $1`, [kept!.id]);
    const job = rows[0];
    expect(job).toBeDefined();
    expect(await t.app.storage.exists(job.audio_key)).toBe(true);
    const sweep = async () => {
      await t.app.queue.send(FREE_RETENTION_QUEUE, {});
      await waitFor(
        async () => {
          const q = await t.app.queue.boss.getQueue(FREE_RETENTION_QUEUE);
          return !q?.queuedCount && !q?.activeCount;
        },
        { what: "the retention job to run", timeoutMs: 20_000, intervalMs: 200 },
      );
    };
    free().clock_offset_seconds = 8 * 86400;
    await sweep();
    await expect
      .poll(
        async () =>
          (await t.app.db.query(`select audio_deleted_at from free_jobs where id = $1`, [job.id])).rows[0]
            .audio_deleted_at,
        { timeout: 20_000 },
      )
      .not.toBeNull();
    expect(await t.app.storage.exists(job.audio_key)).toBe(false);
    expect((await t.app.db.query(`select status from free_jobs where id = $1`, [job.id])).rows[0].status).toBe(
      "completed",
    );

    free().clock_offset_seconds = 31 * 86400;
    await sweep();
    await expect
      .poll(async () => (await t.app.db.query(`select status from free_jobs where id = $1`, [job.id])).rows[0].status, {
        timeout: 20_000,
      })
      .toBe("expired");
    free().clock_offset_seconds = 0;
    const gone = await poll(kept!.poll_url);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe("expired");
  }, 60_000);
});
