// The episodes, clips, jobs, captions and styles endpoints of the account API, over real HTTP on
// loopback: the live flow on real media (upload by PUT, search, cut, download, restyle, captions),
// validation, 404 across accounts, 402 with nothing charged, and idempotent starts.
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { ACCOUNT_OPERATIONS } from "../../facade/operations/account.js";
import { useJfkApiServer, type ApiServer } from "../helpers/api.js";
import type { TestHttpsServer } from "../helpers/https-server.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
/** Checks an answer against the response schema the operation declares for its status. */
function conforms(opId: string, r: { status: number; body: unknown }) {
  const op = ACCOUNT_OPERATIONS.find((o) => o.id === opId)!;
  const schema = op.responses[r.status]?.schema;
  expect(schema, `${opId} declares ${r.status}`).toBeDefined();
  const check = ajv.compile(schema!);
  expect(check(r.body) ? [] : check.errors, `${opId} ${r.status}`).toEqual([]);
}

describe("account API: episodes, clips and jobs", () => {
  let s: ApiServer;
  let media: TestHttpsServer;
  useJfkApiServer((x) => ({ s, media } = x));

  const ledger = async (accountId: string) =>
    (
      await s.app.db.query(`select kind, cents from ledger where account_id = $1 order by created_at, id`, [accountId])
    ).rows.map((r: any) => ({ kind: r.kind, cents: Number(r.cents) }));
  const credit = async (accountId: string) =>
    Number((await s.app.db.query(`select credit_cents from accounts where id = $1`, [accountId])).rows[0].credit_cents);
  const count = async (sql: string, params: unknown[]) => Number((await s.app.db.query(sql, params)).rows[0].n);
  // Both stop at the first error answer or failure, so that it fails the test at once.
  const waitEpisode = async (key: string, id: string, statuses: string[], timeoutMs = 150_000) => {
    const r = await waitFor(
      async () => {
        const r = await s.call(key, "GET", `/api/v1/episodes/${id}`);
        return r.status !== 200 || r.body.status === "failed" || statuses.includes(r.body.status) ? r : undefined;
      },
      { what: `episode ${id} to be ${statuses.join("/")}`, timeoutMs, intervalMs: 250 },
    );
    expect(r.status).toBe(200);
    if (r.body.status === "failed" && !statuses.includes("failed"))
      throw new Error(`episode failed: ${JSON.stringify(r.body.failure)}`);
    return r.body;
  };
  const waitJob = async (key: string, id: string) => {
    const r = await waitFor(
      async () => {
        const r = await s.call(key, "GET", `/api/v1/jobs/${id}`);
        return r.status !== 200 || ["failed", "completed"].includes(r.body.status) ? r : undefined;
      },
      { what: `job ${id}`, timeoutMs: 180_000, intervalMs: 250 },
    );
    expect(r.status).toBe(200);
    if (r.body.status === "failed") throw new Error(`job failed: ${JSON.stringify(r.body.error)}`);
    return r.body;
  };

  it("runs the live flow on real media: upload, search, cut in two styles, download, restyle, captions", async () => {
    const a = await s.account({ plan: true });
    const created = await s.call(a.live, "POST", "/api/v1/episodes", {
      name: "JFK inaugural",
      file_name: "jfk.wav",
      content_type: "podcast",
      target_seconds: 15,
    });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({
      episode_id: expect.stringMatching(UUID),
      status: "awaiting_upload",
      charged_cents: 0,
      livemode: true,
      upload: { method: "PUT" },
    });
    expect(created.headers.get("ratelimit-limit")).toBeTruthy();
    conforms("createEpisode", created);
    const id = created.body.episode_id;

    const early = await s.call(a.live, "POST", `/api/v1/episodes/${id}/uploaded`, {});
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe("upload_missing");

    const put = await fetch(created.body.upload.url, {
      method: "PUT",
      headers: created.body.upload.headers,
      body: await readFile(TEST_MEDIA.jfkWav),
    });
    expect(put.status).toBeLessThan(300);
    const up = await s.call(a.live, "POST", `/api/v1/episodes/${id}/uploaded`, {});
    expect(up.status).toBe(200);
    conforms("episodeUploaded", up);
    expect(up.body).toMatchObject({
      episode_id: id,
      status: expect.stringMatching(/importing|transcribing/),
      livemode: true,
    });
    const again = await s.call(a.live, "POST", `/api/v1/episodes/${id}/uploaded`, {});
    expect(again.status).toBe(200);
    expect(await count(`select count(*)::int as n from runs where origin_ref = $1`, [`episode:${id}`])).toBe(1);

    const ready = await waitEpisode(a.live, id, ["ready"]);
    expect(ready).toMatchObject({
      episode_id: id,
      name: "JFK inaugural",
      duration: "00:11",
      livemode: true,
      progress: { percent: 100 },
    });
    expect(ready.clips.length).toBeGreaterThanOrEqual(1);
    expect(ready.clips[0]).toMatchObject({ number: 1, cut_status: "not_cut", export_status: "none" });
    // Charged once, as its search started: from the plan's allowance.
    expect(await ledger(a.accountId)).toEqual([{ kind: "episode_plan", cents: 0 }]);
    const list = await s.call(a.live, "GET", "/api/v1/episodes");
    conforms("listEpisodes", list);
    expect(list.body.episodes.map((e: any) => e.episode_id)).toEqual([id]);

    const styles = await s.call(a.live, "GET", "/api/v1/styles");
    expect(styles.status).toBe(200);
    conforms("listStyles", styles);
    expect(styles.body.styles.map((x: any) => x.id)).toEqual(expect.arrayContaining(["karaoke", "boxed"]));

    const cut = await s.call(a.live, "POST", `/api/v1/episodes/${id}/clips`, {
      clips: [1],
      style: "karaoke",
      hook_title: true,
    });
    expect(cut.status).toBe(202);
    conforms("exportClips", cut);
    expect(cut.body).toMatchObject({
      charged_cents: 0,
      not_started: [],
      jobs: [{ kind: "cut", status: "queued", number: 1 }],
      livemode: true,
    });
    const during = await s.call(a.live, "GET", `/api/v1/episodes/${id}`);
    conforms("getEpisode", during);
    expect(during.body.clips[0]).toMatchObject({
      cut_status: expect.stringMatching(/cutting|cut/),
      export_status: expect.stringMatching(/rendering|exported/),
    });
    const job1 = await waitJob(a.live, cut.body.jobs[0].job_id);
    expect(job1).toMatchObject({
      kind: "cut",
      status: "completed",
      progress: 100,
      download_url: expect.stringMatching(/^http/),
    });

    const mp4 = await fetch(job1.download_url);
    expect(mp4.status).toBe(200);
    const file = `${s.dataDir}/clip1.mp4`;
    await import("node:fs/promises").then((fs) => mp4.arrayBuffer().then((b) => fs.writeFile(file, Buffer.from(b))));
    const probe = JSON.parse(
      execFileSync("ffprobe", [
        "-v",
        "error",
        "-select_streams",
        "v:0",
        "-show_entries",
        "stream=width,height,codec_name",
        "-of",
        "json",
        file,
      ]).toString(),
    );
    expect(probe.streams[0]).toMatchObject({ width: 1080, height: 1920, codec_name: "h264" });

    // A second export in another style (by name) renders the cut clip again.
    const boxed = await s.call(a.live, "POST", `/api/v1/episodes/${id}/clips`, {
      clips: [ready.clips[0].ref],
      style: "Boxed",
    });
    expect(boxed.status).toBe(202);
    expect(boxed.body.jobs[0]).toMatchObject({ kind: "render" });
    const job2 = await waitJob(a.live, boxed.body.jobs[0].job_id);
    expect(job2.download_url).not.toBe(job1.download_url);

    const clipId = ready.clips[0].clip_id;
    const restyle = await s.call(a.live, "PATCH", `/api/v1/clips/${clipId}`, {
      style: "clean",
      caption_size: "bigger",
      caption_position: "top",
    });
    expect(restyle.status).toBe(202);
    conforms("restyleClip", restyle);
    expect(restyle.body).toMatchObject({
      clip_id: clipId,
      job_id: expect.stringMatching(UUID),
      status: "queued",
      charged_cents: 0,
      livemode: true,
    });
    // Resolved values, and only what changed (the boxed export had no hook title to keep).
    expect(restyle.body.changes).toEqual([
      "style: boxed → clean",
      "caption_size: medium → large",
      "caption_position: bottom → top",
    ]);
    const job3 = await waitJob(a.live, restyle.body.job_id);
    expect(job3.kind).toBe("render");
    const after = await s.call(a.live, "GET", `/api/v1/episodes/${id}`);
    expect(after.body.clips[0]).toMatchObject({
      cut_status: "cut",
      export_status: "exported",
      style: "clean",
      download_url: expect.any(String),
    });

    const caps = await s.call(a.live, "GET", `/api/v1/clips/${clipId}/captions`);
    expect(caps.status).toBe(200);
    conforms("clipCaptions", caps);
    expect(caps.body.total).toBeGreaterThan(0);
    expect(caps.body.captions[0]).toMatchObject({
      id: "1",
      start_seconds: expect.any(Number),
      end_seconds: expect.any(Number),
      speaker: expect.any(String),
      text: expect.any(String),
    });
    const word = caps.body.captions[0].text.split(" ")[0];
    const q = await s.call(a.live, "GET", `/api/v1/clips/${clipId}/captions?q=${encodeURIComponent(word)}&limit=1`);
    expect(q.body.captions).toHaveLength(1);
    const at = await s.call(
      a.live,
      "GET",
      `/api/v1/clips/${clipId}/captions?at=${caps.body.captions[0].start_seconds}`,
    );
    expect(at.body.captions[0].id).toBe("1");
    const bad = await s.call(a.live, "GET", `/api/v1/clips/${clipId}/captions?limit=0`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("limit");

    // A search with a brief: free once the episode is charged; the same brief again is "done".
    const search = await s.call(a.live, "POST", `/api/v1/episodes/${id}/search`, { about: "country" });
    expect(search.status).toBe(202);
    conforms("searchEpisode", search);
    expect(search.body).toMatchObject({ status: "searching", charged_cents: 0 });
    await waitEpisode(a.live, id, ["ready"]);
    const done = await s.call(a.live, "POST", `/api/v1/episodes/${id}/search`, { about: "country" });
    expect(done.status).toBe(202);
    expect(done.body.status).toBe("done");
    conforms("searchEpisode", done);
    conforms("getEpisode", await s.call(a.live, "GET", `/api/v1/episodes/${id}`));
    conforms("getJob", await s.call(a.live, "GET", `/api/v1/jobs/${job1.job_id}`));
    expect(await ledger(a.accountId)).toEqual([{ kind: "episode_plan", cents: 0 }]);

    // Another account sees none of it: 404, never 403.
    const b = await s.account({ creditCents: 1000 });
    for (const [method, path, body] of [
      ["GET", `/api/v1/episodes/${id}`],
      ["POST", `/api/v1/episodes/${id}/uploaded`, {}],
      ["POST", `/api/v1/episodes/${id}/clips`, { clips: [1] }],
      ["POST", `/api/v1/episodes/${id}/search`, { about: "x" }],
      ["GET", `/api/v1/jobs/${job1.job_id}`],
      ["PATCH", `/api/v1/clips/${clipId}`, { style: "clean" }],
      ["GET", `/api/v1/clips/${clipId}/captions`],
    ] as Array<[string, string, unknown?]>) {
      const r = await s.call(b.live, method, path, body);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.error.code).toBe("not_found");
    }
    expect(await ledger(b.accountId)).toEqual([{ kind: "credit", cents: 1000 }]);
  }, 600_000);

  it("refuses bad input with 400 naming the field", async () => {
    const a = await s.account({ creditCents: 500 });
    const cases: Array<[unknown, string]> = [
      [{ file_name: "a.mp3", name: "x".repeat(201) }, "name"],
      [{ file_name: "a.mp3", content_type: "radio" }, "content_type"],
      [{ file_name: "a.mp3", target_seconds: 10 }, "target_seconds"],
      [{ file_name: "a.mp3", target_seconds: 181 }, "target_seconds"],
      [{ file_name: "a.mp3", about: "x".repeat(501) }, "about"],
      [{ source_url: "http://example.com/a.mp3" }, "source_url"],
      [{ source_url: "not a url" }, "source_url"],
      [{ file_name: "a.mp3", extra: 1 }, "extra"],
      [{ file_name: "notes.pdf" }, "file_name"],
    ];
    for (const [body, field] of cases) {
      const r = await s.call(a.live, "POST", "/api/v1/episodes", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.field, JSON.stringify(body)).toBe(field);
      expect(r.body.error.message).toContain(field);
    }
    const ep = (await s.call(a.live, "POST", "/api/v1/episodes", { file_name: "a.mp3" })).body.episode_id;
    const clipCases: Array<[unknown, string]> = [
      [{ clips: [] }, "clips"],
      [{ clips: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }, "clips"],
      [{ clips: [0] }, "clips.0"],
      [{ clips: [1], style: "comic-sans" }, "style"],
      [{ clips: [1], caption_size: "huge" }, "caption_size"],
      [{ clips: [1], caption_position: "left" }, "caption_position"],
      [{ clips: [1], fit: "stretch" }, "fit"],
      [{ clips: [1], background: "plaid" }, "background"],
      [{ clips: [1], hook_title: 3 }, "hook_title"],
      [{ style: "clean" }, "clips"],
    ];
    for (const [body, field] of clipCases) {
      const r = await s.call(a.live, "POST", `/api/v1/episodes/${ep}/clips`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.field, JSON.stringify(body)).toBe(field);
    }
    const notReady = await s.call(a.live, "POST", `/api/v1/episodes/${ep}/clips`, { clips: [1] });
    expect(notReady.status).toBe(409);
    const search = await s.call(a.live, "POST", `/api/v1/episodes/${ep}/search`, { about: "x".repeat(501) });
    expect(search.body.error.field).toBe("about");
    const patch = await s.call(a.live, "PATCH", `/api/v1/clips/${ep}`, { caption_position: "sideways" });
    expect(patch.body.error.field).toBe("caption_position");
    const missing = await s.call(a.live, "GET", `/api/v1/episodes/6f1c1f4e-1111-4222-8333-444455556666`);
    expect(missing.status).toBe(404);
    expect(await ledger(a.accountId)).toEqual([{ kind: "credit", cents: 500 }]);
  });

  it(
    "refuses with 402 and charges nothing: no plan or credit, allowance used " + "up, balance below zero, paid exports",
    async () => {
      const poor = await s.account();
      const r1 = await s.call(poor.live, "POST", "/api/v1/episodes", { source_url: media.url("/jfk.wav") });
      expect(r1.status).toBe(402);
      expect(r1.body.error).toMatchObject({ code: "plan_or_credit_required", needed_cents: 25, credit_cents: 0 });
      conforms("createEpisode", r1);
      expect(await count(`select count(*)::int as n from episodes where account_id = $1`, [poor.accountId])).toBe(0);
      expect(await count(`select count(*)::int as n from runs where input->>'account_id' = $1`, [poor.accountId])).toBe(
        0,
      );
      expect(await ledger(poor.accountId)).toEqual([]);
      // Test keys keep working.
      expect((await s.call(poor.test, "POST", "/api/v1/episodes", { file_name: "a.mp3" })).status).toBe(202);

      const planned = await s.account({ plan: true });
      for (let i = 0; i < 5; i++)
        await s.app.db.query(
          `insert into ledger (id, account_id, cents, kind, ref) values (gen_random_uuid(), ` +
            `$1, 0, 'episode_plan', 'x')`,
          [planned.accountId],
        );
      const r2 = await s.call(planned.live, "POST", "/api/v1/episodes", { file_name: "a.mp3" });
      expect(r2.status).toBe(402);
      expect(r2.body.error).toMatchObject({ code: "credit_required", needed_cents: 25, credit_cents: 0 });
      expect(await count(`select count(*)::int as n from episodes where account_id = $1`, [planned.accountId])).toBe(0);

      const owing = await s.account({ creditCents: 100 });
      await s.app.db.query(`update accounts set credit_cents = -40 where id = $1`, [owing.accountId]);
      const before = await ledger(owing.accountId);
      const r3 = await s.call(owing.live, "POST", "/api/v1/episodes", { file_name: "a.mp3" });
      expect(r3.status).toBe(402);
      expect(r3.body.error).toMatchObject({ code: "balance_below_zero", needed_cents: 40, credit_cents: -40 });
      expect(await ledger(owing.accountId)).toEqual(before);
      // Live calls stop, the month's free transcripts included; reads go on.
      const r3t = await s.call(owing.live, "POST", "/api/v1/transcripts", { url: media.url("/jfk.wav") });
      expect(r3t.status).toBe(402);
      expect(r3t.body.error).toMatchObject({ code: "balance_below_zero", credit_cents: -40 });
      expect((await s.call(owing.live, "GET", "/api/v1/episodes")).status).toBe(200);

      // Exports after the fifth of an episode cost 25 cents each and need the credit first.
      const ex = await s.account({ plan: true });
      const { episodeId, clipIds } = await readyEpisode(ex.accountId, 3);
      for (let i = 0; i < 5; i++) {
        await s.app.db.query(
          `insert into jobs (id, account_id, episode_id, clip_id, kind, status) values ` +
            `(gen_random_uuid(), $1, $2, $3, 'cut', 'failed')`,
          [ex.accountId, episodeId, clipIds[0]],
        );
      }
      const runsBefore = await count(`select count(*)::int as n from runs where input->>'account_id' = $1`, [
        ex.accountId,
      ]);
      const r4 = await s.call(ex.live, "POST", `/api/v1/episodes/${episodeId}/clips`, { clips: [1, 2] });
      expect(r4.status).toBe(402);
      expect(r4.body.error).toMatchObject({ code: "credit_required", needed_cents: 25, credit_cents: 0 });
      expect(await count(`select count(*)::int as n from jobs where episode_id = $1`, [episodeId])).toBe(5);
      expect(await count(`select count(*)::int as n from runs where input->>'account_id' = $1`, [ex.accountId])).toBe(
        runsBefore,
      );
      expect(await ledger(ex.accountId)).toEqual([]);
      const r5 = await s.call(ex.live, "PATCH", `/api/v1/clips/${clipIds[0]}`, { style: "clean" });
      expect(r5.status).toBe(402);

      // With 30 cents, one paid export starts and the other is listed, not charged.
      await s.app.accounts.addCredit(ex.accountId, 30);
      const r6 = await s.call(ex.live, "POST", `/api/v1/episodes/${episodeId}/clips`, { clips: [1, 2, 9] });
      expect(r6.status).toBe(202);
      expect(r6.body.charged_cents).toBe(25);
      conforms("exportClips", r6);
      expect(r6.body.jobs).toHaveLength(1);
      expect(r6.body.not_started).toEqual([
        expect.objectContaining({ clip: 2, reason: "credit_required", needed_cents: 20 }),
        expect.objectContaining({ clip: 9, reason: "not_found" }),
      ]);
      // The charge is taken as the job starts; its render fails (the cut is not in storage), and a
      // failed export is refunded when its run ends: the ledger's last rows say both, in order.
      const job = await waitFor(
        async () => {
          const r = await s.call(ex.live, "GET", `/api/v1/jobs/${r6.body.jobs[0].job_id}`);
          return r.body.status === "failed" ? r.body : undefined;
        },
        { what: "the paid export to fail", timeoutMs: 60_000, intervalMs: 100 },
      );
      expect(job.charged_cents).toBe(0);
      expect((await ledger(ex.accountId)).slice(-2)).toEqual([
        { kind: "export", cents: -25 },
        { kind: "export_refund", cents: 25 },
      ]);
      expect(await credit(ex.accountId)).toBe(30);
    },
  );

  /** A ready episode with clips, written directly (for billing checks that need no media). */
  async function readyEpisode(accountId: string, clips: number) {
    const episodeId = crypto.randomUUID();
    await s.app.db.query(
      `insert into episodes (id, account_id, name, status, state) values ($1, $2, 'made', 'ready', '{}')`,
      [episodeId, accountId],
    );
    const clipIds: string[] = [];
    for (let n = 1; n <= clips; n++) {
      const id = crypto.randomUUID();
      clipIds.push(id);
      const data = {
        number: n,
        ref: `c00${n}`,
        title: `Clip ${n}`,
        start: 0,
        end: 10,
        duration: 10,
        pieces: [{ start: 0, end: 10 }],
        score: { value: 0.5, reasons: [] },
      };
      await s.app.db.query(
        `insert into clips (id, episode_id, account_id, number, ref, data, cut) values ($1, $2, $3, $4, $5, $6, $7)`,
        [
          id,
          episodeId,
          accountId,
          n,
          data.ref,
          JSON.stringify(data),
          n === 1 ? JSON.stringify({ key: "runs/x/clip.mp4", fit: "audio" }) : null,
        ],
      );
    }
    return { episodeId, clipIds };
  }

  it("replays POST /episodes with the same Idempotency-Key, and concurrent duplicates " +
    "start exactly one run", async () => {
    const a = await s.account({ creditCents: 1000 });
    const body = { source_url: media.url("/jfk.wav"), name: "once" };
    const headers = { "idempotency-key": "ep-once-1" };
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => s.call(a.live, "POST", "/api/v1/episodes", body, headers)),
    );
    const ok = results.filter((r) => r.status === 202);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of results) expect([202, 409]).toContain(r.status);
    expect(new Set(ok.map((r) => r.body.episode_id)).size).toBe(1);
    const replay = await waitFor(
      async () => {
        const r = await s.call(a.live, "POST", "/api/v1/episodes", body, headers);
        return r.status === 202 ? r : undefined;
      },
      { what: "the first answer to be recorded", timeoutMs: 120_000, intervalMs: 250 },
    );
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(ok[0]!.body);
    expect(await count(`select count(*)::int as n from episodes where account_id = $1`, [a.accountId])).toBe(1);
    expect(
      await count(`select count(*)::int as n from runs where pipeline = 'api-episode' and input->>'account_id' = $1`, [
        a.accountId,
      ]),
    ).toBe(1);
    const other = await s.call(a.live, "POST", "/api/v1/episodes", { ...body, name: "twice" }, headers);
    expect(other.status).toBe(422);
    // The link import goes through to ready, charged by its measured length from credit.
    const ep = await waitEpisode(a.live, ok[0]!.body.episode_id, ["ready"]);
    expect(ep.charged_cents).toBe(25);
    expect(await credit(a.accountId)).toBe(975);
  }, 240_000);

  it("answers test keys with the sample episode, starting and charging nothing", async () => {
    const a = await s.account();
    const created = await s.call(a.test, "POST", "/api/v1/episodes", { file_name: "talk.mp4" });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ livemode: false, charged_cents: 0 });
    const ep = await s.call(a.test, "GET", `/api/v1/episodes/${created.body.episode_id}`);
    expect(ep.status).toBe(200);
    expect(ep.body).toMatchObject({ livemode: false, status: "ready", duration: "45:12" });
    conforms("createEpisode", created);
    conforms("getEpisode", ep);
    conforms("listEpisodes", await s.call(a.test, "GET", "/api/v1/episodes"));
    const again = await s.call(a.test, "GET", `/api/v1/episodes/${created.body.episode_id}`);
    expect(again.body).toEqual(ep.body);
    const exp = await s.call(a.test, "POST", `/api/v1/episodes/${created.body.episode_id}/clips`, {
      clips: [1],
      style: "karaoke",
    });
    expect(exp.status).toBe(202);
    const job = await s.call(a.test, "GET", `/api/v1/jobs/${exp.body.jobs[0].job_id}`);
    expect(job.body).toMatchObject({ livemode: false, status: "completed" });
    conforms("exportClips", exp);
    conforms("getJob", job);
    const caps = await s.call(a.test, "GET", `/api/v1/clips/${ep.body.clips[0].clip_id}/captions?q=friday`);
    expect(caps.body).toMatchObject({ livemode: false, total: 1 });
    const patch = await s.call(a.test, "PATCH", `/api/v1/clips/${ep.body.clips[0].clip_id}`, { style: "boxed" });
    expect(patch.status).toBe(202);
    conforms("restyleClip", patch);
    conforms("clipCaptions", caps);
    expect(await count(`select count(*)::int as n from episodes where account_id = $1`, [a.accountId])).toBe(0);
    expect(await count(`select count(*)::int as n from runs where input->>'account_id' = $1`, [a.accountId])).toBe(0);
    expect(await ledger(a.accountId)).toEqual([]);
  });
});
