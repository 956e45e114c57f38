// The website's upload-started work over real HTTP on loopback, with the real transcript pipeline
// (pocketsphinx on jfk.wav): a signed-in account's transcript of an uploaded file (chunked PUTs)
// that completes with its TXT, SRT and VTT and counts against the month's free transcripts; the
// public free page's upload, within the no-key tier's limits, to a result; an 11-minute upload
// refused with its numbers and its bytes deleted; and the daily retention deleting uploaded free
// audio after 7 days (the clock moved as the free API's retention test moves it).
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweepFree } from "../../daemon/free/janitor.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";
import { makeToneMp3, TEST_MEDIA } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";
import { WebClient } from "../helpers/web.js";

/** PUTs a file to an upload address in chunks of `size` bytes. */
async function putInChunks(url: string, data: Buffer, size: number, type = "audio/wav") {
  let last: any;
  for (let at = 0; at < data.length; at += size) {
    const piece = data.subarray(at, at + size);
    const res = await fetch(url, {
      method: "PUT",
      headers: { "content-type": type, "content-range": `bytes ${at}-${at + piece.length - 1}/${data.length}` },
      body: piece,
    });
    expect(res.status).toBe(200);
    last = await res.json();
  }
  expect(last).toMatchObject({ complete: true, bytes: data.length });
}

describe.each(testBackends())("website uploads on %s", (backend) => {
  let t: ApiServer;
  let jfk: Buffer;
  const free = () => t.app.config.free as Record<string, any>;
  const from = (ip: string) => ({ headers: { "x-forwarded-for": ip } });

  beforeAll(async () => {
    jfk = await readFile(TEST_MEDIA.jfkWav);
    t = await openApiServer(backend, { transcribe: { engine: "pocketsphinx" }, free: { trust_proxy: true } });
  }, 120_000);
  afterAll(() => t?.close());

  it("transcribes a file uploaded in chunks for the signed-in account, with " +
    "origin web and the month's free allowance", async () => {
    const c = new WebClient(t.base);
    const me = await c.signUp();
    const accountId = me.body.account.id;
    // A website sign-up's free transcripts wait for its verified address (test/api/web-abuse.test.ts).
    await t.app.db.query(`update accounts set email_verified_at = now() where id = $1`, [accountId]);
    const made = await c.call("POST", "/api/v1/transcripts/uploads", { file_name: "JFK speech.wav" });
    expect(made.status).toBe(202);
    expect(made.body).toMatchObject({
      transcript_id: expect.any(String),
      upload: { method: "PUT", headers: { "Content-Type": "audio/wav" } },
    });
    const id = made.body.transcript_id;
    const early = await c.call("POST", `/api/v1/transcripts/${id}/uploaded`, {});
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe("upload_missing");
    expect((await c.call("POST", "/api/v1/transcripts/uploads", { file_name: "notes.txt" })).body.error).toMatchObject({
      code: "unsupported_type",
      field: "file_name",
    });

    await putInChunks(made.body.upload.url, jfk, 128 * 1024);
    const started = await c.call("POST", `/api/v1/transcripts/${id}/uploaded`, {});
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ id, name: "JFK speech", url: `upload:${id}`, free: true, livemode: true });
    expect(["queued", "running"]).toContain(started.body.status);
    const again = await c.call("POST", `/api/v1/transcripts/${id}/uploaded`, {});
    expect(again.body.id).toBe(id);
    const { rows } = await t.app.db.query(`select origin from runs where origin_ref = $1`, [id]);
    expect(rows.map((r) => r.origin)).toEqual(["web"]);
    // Another account cannot start or see it.
    const other = new WebClient(t.base);
    await other.signUp();
    expect((await other.call("POST", `/api/v1/transcripts/${id}/uploaded`, {})).status).toBe(404);

    const done = await waitFor(
      async () => {
        const r = await c.call("GET", `/api/v1/transcripts/${id}`);
        return r.status !== 200 || ["completed", "failed"].includes(r.body.status) ? r : undefined;
      },
      { what: "the uploaded transcript to finish", timeoutMs: 150_000, intervalMs: 300 },
    );
    expect(done.body).toMatchObject({ status: "completed", free: true, charged_cents: 0 });
    expect(done.body.word_count).toBeGreaterThan(5);
    expect(done.body.text.length).toBeGreaterThan(20);
    for (const kind of ["txt", "srt", "vtt"] as const) {
      const file = await fetch(done.body.downloads[kind]);
      expect(file.status, kind).toBe(200);
      const body = await file.text();
      expect(body.length, kind).toBeGreaterThan(20);
      if (kind === "srt") expect(body).toMatch(/^1\r?\n\d\d:\d\d:\d\d,\d{3} --> /);
      if (kind === "vtt") expect(body.startsWith("WEBVTT")).toBe(true);
    }
    const events = await t.app.db.query(`select type from events where account_id = $1 and type like 'transcript.%'`, [
      accountId,
    ]);
    expect(events.rows.map((r) => r.type)).toEqual(["transcript.completed"]);

    // The month's free transcripts are the API's too: with them used and no credit, the next is 402.
    await t.app.db.query(
      `insert into transcripts (id, account_id, url, name, free, status) select ` +
        `gen_random_uuid(), $1, 'https://example.com/' || n, 'seed', true, 'completed' ` +
        `from generate_series(1, 2) n`,
      [accountId],
    );
    const paid = await c.call("POST", "/api/v1/transcripts/uploads", { file_name: "more.wav" });
    await putInChunks(paid.body.upload.url, jfk, jfk.length);
    const refused = await c.call("POST", `/api/v1/transcripts/${paid.body.transcript_id}/uploaded`, {});
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({ needed_cents: expect.any(Number), credit_cents: 0 });
  }, 200_000);

  let anonJob: { id: string; poll_url: string } | undefined;

  it("transcribes an upload from the free page without a key, then holds the address to one file a day", async () => {
    const c = new WebClient(t.base);
    await c.session();
    const made = await c.call("POST", "/api/v1/free/uploads", { file_name: "jfk.wav" }, from("203.0.113.7"));
    expect(made.status).toBe(202);
    expect(made.body).toMatchObject({
      id: expect.any(String),
      upload: { method: "PUT" },
      poll_url: expect.stringContaining(`/api/v1/transcribe/${made.body.id}?token=`),
    });
    await putInChunks(made.body.upload.url, jfk, 100_000);
    const started = await c.call("POST", `/api/v1/free/uploads/${made.body.id}/uploaded`, {}, from("203.0.113.7"));
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ id: made.body.id, status: "processing" });
    expect(started.body.duration_seconds).toBeCloseTo(11, 0);
    anonJob = { id: made.body.id, poll_url: made.body.poll_url };

    const result = await waitFor(
      async () => {
        const r = await fetch(made.body.poll_url);
        const body = await r.json();
        return r.status !== 200 || body.status !== "processing" ? { status: r.status, body } : undefined;
      },
      { what: "the free upload's result", timeoutMs: 150_000, intervalMs: 300 },
    );
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ status: "completed", language: expect.any(String) });
    expect(result.body.word_count).toBeGreaterThan(5);
    expect(result.body.srt).toMatch(/-->/);
    expect(result.body.vtt.startsWith("WEBVTT")).toBe(true);

    // The address has had its file today: the next upload address is refused before any upload.
    const next = await c.call("POST", "/api/v1/free/uploads", { file_name: "jfk.wav" }, from("203.0.113.7"));
    expect(next.status).toBe(429);
    expect(next.body.error).toMatchObject({ code: "anon_daily_limit", limit: 1, resets_at: expect.any(String) });
  }, 200_000);

  it("refuses an upload longer than 10 minutes without a key, with both lengths, and deletes its bytes", async () => {
    const long = await readFile(await makeToneMp3(660));
    const c = new WebClient(t.base);
    await c.session();
    const made = await c.call("POST", "/api/v1/free/uploads", { file_name: "long.mp3" }, from("203.0.113.8"));
    expect(made.status).toBe(202);
    await putInChunks(made.body.upload.url, long, 64 * 1024, "audio/mpeg");
    const { rows } = await t.app.db.query(`select storage_key from web_uploads where id = $1`, [made.body.id]);
    expect(await t.app.storage.exists(rows[0].storage_key)).toBe(true);
    const refused = await c.call("POST", `/api/v1/free/uploads/${made.body.id}/uploaded`, {}, from("203.0.113.8"));
    expect(refused.status).toBe(413);
    expect(refused.body.error).toMatchObject({ code: "too_long_anon", max_duration_seconds: 600 });
    expect(refused.body.error.duration_seconds).toBeCloseTo(660, 0);
    expect(await t.app.storage.exists(rows[0].storage_key)).toBe(false);
    expect(
      (await c.call("POST", `/api/v1/free/uploads/${made.body.id}/uploaded`, {}, from("203.0.113.8"))).status,
    ).toBe(404);
    // Nothing was counted: the same address still has its file of the day.
    expect((await c.call("POST", "/api/v1/free/uploads", { file_name: "jfk.wav" }, from("203.0.113.8"))).status).toBe(
      202,
    );
  });

  it(
    "takes a free key as Bearer (and refuses an unknown one), and the retention " +
      "deletes uploaded audio after 7 days",
    async () => {
      const c = new WebClient(t.base);
      await c.session();
      const bad = await c.call(
        "POST",
        "/api/v1/free/uploads",
        { file_name: "a.wav" },
        { headers: { authorization: "Bearer svc_free_nope" } },
      );
      expect(bad.status).toBe(401);
      expect(bad.body.error.code).toBe("bad_key");
      const key = (await t.call(undefined, "POST", "/api/v1/transcribe/keys", { email: "uploader@example.com" })).body
        .key;
      const keyed = await c.call(
        "POST",
        "/api/v1/free/uploads",
        { file_name: "a.wav" },
        { headers: { authorization: `Bearer ${key}` } },
      );
      expect(keyed.status).toBe(202);
      // Uploaded but never started: removed with its file once its link is a day past its expiry.
      await putInChunks(keyed.body.upload.url, jfk, jfk.length);
      const pending = (
        await t.app.db.query(`select storage_key, free_key_id from web_uploads where id = $1`, [keyed.body.id])
      ).rows[0];
      expect(pending.free_key_id).not.toBeNull();

      const job = (await t.app.db.query(`select audio_key, status from free_jobs where id = $1`, [anonJob!.id]))
        .rows[0];
      expect(job.status).toBe("completed");
      expect(job.audio_key).toMatch(/^uploads\/free\//);
      expect(await t.app.storage.exists(job.audio_key)).toBe(true);
      const sweep = () => sweepFree({ db: t.app.db, storage: t.app.storage, config: t.app.config, log: t.app.log });
      free().clock_offset_seconds = 6 * 86400;
      await sweep();
      expect(await t.app.storage.exists(job.audio_key)).toBe(true);
      free().clock_offset_seconds = 8 * 86400;
      try {
        await sweep();
      } finally {
        free().clock_offset_seconds = 0;
      }
      expect(await t.app.storage.exists(job.audio_key)).toBe(false);
      const after = (
        await t.app.db.query(`select status, audio_deleted_at from free_jobs where id = $1`, [anonJob!.id])
      ).rows[0];
      expect(after.status).toBe("completed");
      expect(after.audio_deleted_at).not.toBeNull();
      expect((await (await fetch(anonJob!.poll_url)).json()).status).toBe("completed"); // the text stays 30 days
      expect(await t.app.storage.exists(pending.storage_key)).toBe(false);
      expect(
        (await t.app.db.query(`select count(*)::int as n from web_uploads where id = $1`, [keyed.body.id])).rows[0].n,
      ).toBe(0);
    },
  );
});
