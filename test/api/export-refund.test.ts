// A paid export whose render fails is refunded, once, and its run leaves one event row: the
// account's clip.failed, written by the episode service (a stage's copy of it is not written).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { waitFor } from "../helpers/wait.js";

describe("account API: a failed paid export", () => {
  let s: ApiServer;
  beforeAll(async () => {
    s = await openApiServer("pglite");
  }, 120_000);
  afterAll(() => s?.close());

  const ledger = async (accountId: string) =>
    (
      await s.app.db.query(`select kind, cents, ref from ledger where account_id = $1 order by created_at, id`, [
        accountId,
      ])
    ).rows.map((r: any) => ({ kind: r.kind, cents: Number(r.cents), ref: r.ref }));

  /** A ready episode whose one clip has a cut that is not in storage: its render is bound to fail. */
  async function readyEpisode(accountId: string) {
    const episodeId = crypto.randomUUID();
    const clipId = crypto.randomUUID();
    await s.app.db.query(
      `insert into episodes (id, account_id, name, status, state) values ($1, $2, 'made', 'ready', '{}')`,
      [episodeId, accountId],
    );
    const data = {
      number: 1,
      ref: "c001",
      title: "Clip 1",
      start: 0,
      end: 10,
      duration: 10,
      pieces: [{ start: 0, end: 10 }],
      score: { value: 0.5, reasons: [] },
    };
    await s.app.db.query(
      `insert into clips (id, episode_id, account_id, number, ref, data, cut) values ($1, $2, $3, 1, 'c001', $4, $5)`,
      [clipId, episodeId, accountId, JSON.stringify(data), JSON.stringify({ key: "runs/gone/clip.mp4", fit: "audio" })],
    );
    // The episode's 5 free exports are used.
    for (let i = 0; i < 5; i++) {
      await s.app.db.query(
        `insert into jobs (id, account_id, episode_id, clip_id, kind, status) values ` +
          `(gen_random_uuid(), $1, $2, $3, 'cut', 'failed')`,
        [accountId, episodeId, clipId],
      );
    }
    return episodeId;
  }

  /** Starts a paid export on an episode whose render is bound to fail, and waits for the job to end. */
  async function failedExport() {
    const a = await s.account({ plan: true, creditCents: 100 });
    const episodeId = await readyEpisode(a.accountId);
    const spentBefore = (await s.call(a.live, "GET", "/api/v1/me")).body.usage.spent_cents;
    const started = await s.call(a.live, "POST", `/api/v1/episodes/${episodeId}/clips`, { clips: [1] });
    expect(started.status).toBe(202);
    expect(started.body.charged_cents).toBe(25);
    const jobId: string = started.body.jobs[0].job_id;
    const job = await waitFor(
      async () => {
        const r = await s.call(a.live, "GET", `/api/v1/jobs/${jobId}`);
        return ["failed", "completed"].includes(r.body.status) ? r.body : undefined;
      },
      { what: `job ${jobId} to end`, timeoutMs: 120_000, intervalMs: 200 },
    );
    expect(job.status).toBe("failed");
    return { a, jobId, job, spentBefore };
  }

  it("writes one event row for the run: the service's clip.failed, not also the notify step's copy", async () => {
    const { jobId } = await failedExport();
    const { rows: run } = await s.app.db.query(`select run_id from jobs where id = $1`, [jobId]);
    const { rows: events } = await s.app.db.query(`select type, account_id from events where run_id = $1`, [
      run[0].run_id,
    ]);
    expect(events.map((e: any) => e.type)).toEqual(["clip.failed"]);
  }, 180_000);

  it("gives the 25 cents back when the render fails, once, and /me agrees", async () => {
    const { a, jobId, job, spentBefore } = await failedExport();
    expect(job.charged_cents).toBe(0);
    const rows = await ledger(a.accountId);
    expect(rows.filter((r) => r.ref === jobId).map((r) => [r.kind, r.cents])).toEqual([
      ["export", -25],
      ["export_refund", 25],
    ]);
    const me = (await s.call(a.live, "GET", "/api/v1/me")).body;
    expect(me.credit.credit_cents).toBe(100);
    expect(me.usage.spent_cents).toBe(spentBefore);

    // A replayed run end refunds nothing more.
    expect(await s.app.db.transaction((tx) => s.app.billing.refundExport(tx, a.accountId, jobId))).toBe(0);
    expect(await ledger(a.accountId)).toEqual(rows);
  }, 180_000);
});
