// POST/GET /api/v1/transcripts over real HTTP on loopback, with the real transcript pipeline
// (fetch-source from a local https server, probe, pocketsphinx) on jfk.wav.
import { randomUUID } from "node:crypto";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRANSCRIPT_SCHEMA } from "../../facade/operations/transcripts.js";
import { runAdmin } from "../../daemon/account/admin.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";
import { serveFile, startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";

const ajv = new Ajv({ strict: false });
addFormats.default(ajv);
const matchesSchema = ajv.compile(TRANSCRIPT_SCHEMA);
const expectSchema = (body: unknown) => expect(matchesSchema(body), JSON.stringify(matchesSchema.errors)).toBe(true);

describe.each(testBackends())("transcripts on %s", (backend) => {
  let media: TestHttpsServer;
  let t: ApiServer;
  let acc: { accountId: string; live: string; test: string };

  beforeAll(async () => {
    media = await startHttpsServer({
      "/talks/jfk.wav": serveFile(TEST_MEDIA.jfkWav, "audio/wav"),
      "/talks/again.wav": serveFile(TEST_MEDIA.jfkWav, "audio/wav"),
    });
    t = await openApiServer(backend, {
      network: { allow_loopback: true, extra_ca: media.caPath },
      transcribe: { engine: "pocketsphinx" },
    });
    acc = await t.account();
  });
  afterAll(async () => {
    await t?.close();
    await media?.close();
  });

  async function waitDone(key: string, id: string) {
    // Stops at the first error answer too, so that it fails the test at once.
    const res = await waitFor(
      async () => {
        const res = await t.call(key, "GET", `/api/v1/transcripts/${id}`);
        return res.status !== 200 || res.body.status === "completed" || res.body.status === "failed" ? res : undefined;
      },
      { what: `transcript ${id} to complete or fail`, timeoutMs: 110_000, intervalMs: 250 },
    );
    expect(res.status).toBe(200);
    return res.body;
  }

  it(
    "transcribes a linked recording, serves its text and files, and answers " + "a repeat with the same transcript",
    async () => {
      const url = media.url("/talks/jfk.wav");
      const first = await t.call(acc.live, "POST", "/api/v1/transcripts", { url });
      expect(first.status).toBe(202);
      expect(first.body).toMatchObject({
        status: "queued",
        name: "jfk",
        url,
        livemode: true,
        free: true,
        charged_cents: 0,
      });
      expect(first.body.text).toBeUndefined();
      expectSchema(first.body);
      expect(Object.keys(first.body.downloads).sort()).toEqual(["page", "srt", "txt", "vtt"]);
      expect(first.headers.get("ratelimit-limit")).toBe("600");
      const id = first.body.id;

      // Asked again while it runs: the same transcript, still accepted.
      const during = await t.call(acc.live, "POST", "/api/v1/transcripts", { url: `${url}#t=3` });
      expect(during.status).toBe(202);
      expect(during.body.id).toBe(id);

      const done = await waitDone(acc.live, id);
      expect(done).toMatchObject({
        id,
        status: "completed",
        language: "en",
        progress: 100,
        charged_cents: 0,
        livemode: true,
      });
      expect(done.text.split(/\s+/).length).toBeGreaterThan(10);
      expect(done.text.toLowerCase()).toContain("country");
      expect(done.duration).toBe("00:11");
      expect(done.duration_seconds).toBeCloseTo(11, 0);
      expectSchema(done);

      const txt = await fetch(done.downloads.txt);
      expect(txt.status).toBe(200);
      expect(txt.headers.get("content-disposition")).toMatch(/^attachment; filename="jfk\.txt"/);
      expect((await txt.text()).trim()).toBe(done.text.trim());
      const srt = await fetch(done.downloads.srt);
      expect(await srt.text()).toMatch(/^1\n00:00:\d\d,\d{3} --> /);
      const vtt = await fetch(done.downloads.vtt, { headers: { range: "bytes=0-5" } });
      expect(vtt.status).toBe(206);
      expect(await vtt.text()).toBe("WEBVTT");
      // The page is the site's results page, whose token opens the transcript (test/api/web-studio.test.ts).
      const page = new URL(done.downloads.page);
      expect(page.pathname).toMatch(/^\/r\/[\w-]+\.[\w-]+$/);
      const results = await fetch(`${t.base}/web/api/v1/results/${page.pathname.slice(3)}`);
      expect(await results.json()).toMatchObject({ id, status: "completed", text: done.text });

      const again = await t.call(acc.live, "POST", "/api/v1/transcripts", { url });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ id, status: "completed", text: done.text });
      const runs = await t.app.db.query(`select count(*)::int as n from runs where pipeline = 'transcript'`);
      expect(runs.rows[0].n).toBe(1);
    },
  );

  it(
    "makes one transcript of concurrent orders, replays an Idempotency-Key, " +
      "and keeps other accounts and test keys out",
    async () => {
      const other = await t.account();
      const body = { url: media.url("/talks/again.wav"), name: "Again" };
      // Concurrent orders of one url make one transcript and one run.
      const racing = await Promise.all([1, 2, 3].map(() => t.call(other.live, "POST", "/api/v1/transcripts", body)));
      expect(racing.map((r) => r.status)).toEqual([202, 202, 202]);
      expect(new Set(racing.map((r) => r.body.id)).size).toBe(1);
      const runs = await t.app.db.query(`select count(*)::int as n from transcripts where account_id = $1`, [
        other.accountId,
      ]);
      expect(runs.rows[0].n).toBe(1);
      const key = { "idempotency-key": randomUUID() };
      const a = await t.call(other.live, "POST", "/api/v1/transcripts", body, key);
      const b = await t.call(other.live, "POST", "/api/v1/transcripts", body, key);
      expect(a.status).toBe(202);
      expect(b.status).toBe(202);
      expect(b.body).toEqual(a.body);
      expect(a.body.id).toBe(racing[0]!.body.id);
      expect(b.headers.get("idempotent-replayed")).toBe("true");
      expect((await t.call(acc.live, "GET", `/api/v1/transcripts/${a.body.id}`)).status).toBe(404);
      expect((await t.call(other.test, "GET", `/api/v1/transcripts/${a.body.id}`)).status).toBe(404);
      expect((await t.call(other.live, "GET", `/api/v1/transcripts/${randomUUID()}`)).body.error).toMatchObject({
        code: "not_found",
        field: "id",
      });
      expect((await t.call(other.live, "GET", `/api/v1/transcripts/not-a-uuid`)).status).toBe(404);
      await waitDone(other.live, a.body.id);
    },
  );

  it("charges by length after the free transcripts of the month, and refuses without credit", async () => {
    const payer = await t.account();
    for (let i = 0; i < 3; i++) {
      await t.app.db.query(
        `insert into transcripts (id, account_id, url, name, free, status) values ` +
          `($1, $2, $3, 'old', true, 'completed')`,
        [randomUUID(), payer.accountId, `https://example.com/${i}.mp3`],
      );
    }
    const url = media.url("/talks/jfk.wav");
    const refused = await t.call(payer.live, "POST", "/api/v1/transcripts", { url });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({ code: "credit_required", needed_cents: 2, credit_cents: 0 });
    const none = await t.app.db.query(`select count(*)::int as n from transcripts where account_id = $1 and url = $2`, [
      payer.accountId,
      url,
    ]);
    expect(none.rows[0].n).toBe(0);

    await runAdmin(t.app.accounts, "credit.add", { account: payer.accountId, cents: 100 });
    const paid = await t.call(payer.live, "POST", "/api/v1/transcripts", { url });
    expect(paid.status).toBe(202);
    expect(paid.body.free).toBe(false);
    const done = await waitDone(payer.live, paid.body.id);
    // 11 s is one started minute at 100 cents an hour: 1.67, rounded up to 2 cents.
    expect(done).toMatchObject({ status: "completed", charged_cents: 2, free: false });
    expect((await t.app.accounts.getAccount(payer.accountId))!.credit_cents).toBe(98);
    const ledger = await t.app.db.query(
      `select cents, kind, ref from ledger where account_id = $1 and kind = 'transcript'`,
      [payer.accountId],
    );
    expect(ledger.rows.map((r: any) => ({ ...r, cents: Number(r.cents) }))).toEqual([
      { cents: -2, kind: "transcript", ref: paid.body.id },
    ]);
    const me = await t.call(payer.live, "GET", "/api/v1/me");
    expect(me.body.usage).toMatchObject({ transcripts: 4, free_transcripts_used: 3, spent_cents: 2 });
    expect(me.body.credit).toEqual({ credit_cents: 98, plan: false, below_zero: false });
  });

  it("refuses links to private addresses and bad links with 400 naming the field, starting nothing", async () => {
    const before = await t.app.db.query(`select count(*)::int as n from runs`);
    for (const url of [
      "https://10.1.2.3/a.mp3",
      "https://192.168.0.10/a.mp3",
      "https://169.254.169.254/latest",
      "https://[fd00::1]/a.mp3",
      "https://[::ffff:10.0.0.1]/a.mp3",
    ]) {
      const res = await t.call(acc.live, "POST", "/api/v1/transcripts", { url });
      expect(res.status, url).toBe(400);
      expect(res.body.error, url).toMatchObject({ code: "forbidden_address", field: "url" });
    }
    const http = await t.call(acc.live, "POST", "/api/v1/transcripts", { url: "http://example.com/a.mp3" });
    expect(http.body.error).toMatchObject({ code: "invalid_url", field: "url" });
    const nohost = await t.call(acc.live, "POST", "/api/v1/transcripts", { url: "https://no-such-host.invalid/a.mp3" });
    expect(nohost.status).toBe(400);
    expect(nohost.body.error).toMatchObject({ code: "invalid_url", field: "url" });
    const extra = await t.call(acc.live, "POST", "/api/v1/transcripts", { url: media.url("/x.wav"), speed: 2 });
    expect(extra.body.error).toMatchObject({ code: "invalid_request", field: "speed" });
    const longName = await t.call(acc.live, "POST", "/api/v1/transcripts", {
      url: media.url("/x.wav"),
      name: "n".repeat(201),
    });
    expect(longName.body.error).toMatchObject({ code: "invalid_request", field: "name" });
    const after = await t.app.db.query(`select count(*)::int as n from runs`);
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it("reports a failed transcript with its reason and charges nothing", async () => {
    const res = await t.call(acc.live, "POST", "/api/v1/transcripts", { url: media.url("/talks/missing.wav") });
    expect(res.status).toBe(202);
    const done = await waitDone(acc.live, res.body.id);
    expect(done).toMatchObject({ status: "failed", charged_cents: 0, error: { code: "fetch_failed" } });
    expect(done.error.message).toMatch(/404/);
    expect(done.text).toBeUndefined();
    expectSchema(done);
    const retry = await t.call(acc.live, "POST", "/api/v1/transcripts", { url: media.url("/talks/missing.wav") });
    expect(retry.status).toBe(202);
    expect(retry.body.id).not.toBe(res.body.id);
    await waitDone(acc.live, retry.body.id);
  });

  it("needs the transcripts scope", async () => {
    const a = await runAdmin(t.app.accounts, "account.create", { email: "scope@example.com" });
    const k = await runAdmin(t.app.accounts, "key.create", {
      account: a.account_id,
      mode: "live",
      scopes: "clips.read",
    });
    const res = await t.call(String(k.key), "POST", "/api/v1/transcripts", { url: media.url("/talks/jfk.wav") });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: "forbidden", scope: "transcripts" });
    expect((await t.call(undefined, "GET", `/api/v1/transcripts/${randomUUID()}`)).status).toBe(401);
  });
});
