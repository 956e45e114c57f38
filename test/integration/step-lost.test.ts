// A run never waits on a job the queue no longer holds (issue 27, item 3). The job behind a run's
// step is taken away in SQL (deleted, or marked failed as pg-boss does when it gives a job up) and
// the runner's sweep ends the run as failed with `step_lost`, its on_failure step delivering the
// failure event; a job pg-boss fails for good reaches the runner through the dead letter queue.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STEP_QUEUE } from "../../daemon/engine/queue.js";
import { testBackends } from "../helpers/backends.js";
import { openTestApp, type TestApp } from "../helpers/app.js";
import { until } from "../helpers/cli.js";

describe.each(testBackends())("runs whose job the queue lost, on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(backend, { overrides: { queue: { shutdown_grace_seconds: 0 } } });
  });
  afterAll(async () => {
    t?.app.runner.abortAll();
    await t?.close();
  });

  const jobsOf = async (runId: string) =>
    (
      await t.app.db.query<{ id: string; state: string }>(
        `select id, state from pgboss.job where name = $1 and data->>'runId' = $2`,
        [STEP_QUEUE, runId],
      )
    ).rows;
  const eventsOf = async (runId: string) =>
    (await t.app.db.query<{ type: string }>(`select type from events where run_id = $1`, [runId])).rows.map(
      (r) => r.type,
    );

  it("fails a queued run whose job was deleted, at the next sweep, and runs on_failure", async () => {
    // The job is deleted in the transaction that sent it, so no worker ever sees it.
    const run = await t.app.db.transaction(async (tx) => {
      const r = await t.app.runner.startRun("t-crash", {}, { tx });
      const gone = await tx.query(`delete from pgboss.job where name = $1 and data->>'runId' = $2 returning id`, [
        STEP_QUEUE,
        r.id,
      ]);
      expect(gone.rows).toHaveLength(1);
      return r;
    });
    expect((await t.app.runner.getRun(run.id))?.state).toBe("queued");
    // The sweep that runs every heartbeat interval, run now (it may have run already: it ends a run once).
    await t.app.runner.sweepLost();
    const done = await t.app.runner.waitForRun(run.id, { timeoutMs: 30_000 });
    expect(done.state).toBe("failed");
    expect(done.error).toMatchObject({ code: "step_lost", stage: "record", step: 0 });
    expect(done.error!.message).toMatch(/queue no longer holds its job/);
    expect(done.steps.find((s) => s.phase === "on_failure")?.state).toBe("succeeded");
    expect(await eventsOf(run.id)).toEqual(["test.failed"]);
    // Nothing behind it any more, and nothing left running.
    expect((await jobsOf(run.id)).filter((j) => ["created", "retry", "active"].includes(j.state))).toEqual([]);
  });

  it("fails a running step whose active job pg-boss marked failed, when the sweep runs", async () => {
    const run = await t.app.runner.startRun("t-hold", {});
    await until(() => existsSync(path.join(t.dataDir, "markers", `${run.id}.sleeping`)), {
      what: "the held step to start",
    });
    const active = (await jobsOf(run.id)).filter((j) => j.state === "active");
    expect(active).toHaveLength(1);
    // What pg-boss writes when it gives a job up (its retries or its expiry spent).
    await t.app.db.query(`update pgboss.job set state = 'failed', completed_on = now() where id = $1`, [active[0]!.id]);
    expect((await t.app.runner.getRun(run.id))?.state).toBe("running");
    expect(await t.app.runner.sweepLost()).toBe(1);
    const done = await t.app.runner.waitForRun(run.id, { timeoutMs: 30_000 });
    expect(done.state).toBe("failed");
    expect(done.error).toMatchObject({ code: "step_lost", stage: "sleep", step: 0 });
    expect(await eventsOf(run.id)).toEqual(["test.failed"]);
    // A second sweep finds nothing: the run ended once.
    expect(await t.app.runner.sweepLost()).toBe(0);
  });

  it("ends the run from the dead letter queue when pg-boss fails the job for good, without a sweep", async () => {
    const run = await t.app.runner.startRun("t-hold", {});
    await until(() => existsSync(path.join(t.dataDir, "markers", `${run.id}.sleeping`)), {
      what: "the held step to start",
    });
    const [job] = (await jobsOf(run.id)).filter((j) => j.state === "active");
    // No retries left, then a failure through pg-boss itself: it moves the job to the dead letter queue.
    await t.app.db.query(`update pgboss.job set retry_limit = retry_count where id = $1`, [job!.id]);
    await t.app.queue.boss.fail(STEP_QUEUE, job!.id, { message: "given up in the test" });
    const done = await t.app.runner.waitForRun(run.id, { timeoutMs: 30_000 });
    expect(done.state).toBe("failed");
    expect(done.error?.code).toBe("step_lost");
    expect(await eventsOf(run.id)).toEqual(["test.failed"]);
  });
});
