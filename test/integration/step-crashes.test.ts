// A worker killed under one step again and again (issue 27, item 3). The daemon kills itself
// with SIGKILL at the crash point `step:sleep` (CLIPD_FAULTS), once the sleep step is marked
// running; it is restarted with the point set until it has died k times, then without it. The
// step allows no retries for errors, so a run that succeeds here shows that crashes spent none;
// under the crash limit (3) the run must succeed, at it the run fails with crashed_repeatedly and
// its on_failure step records the failure event. Nothing is left running without a job. Two cases
// cover both sides of the limit (more kills than the limit end as the limit does); the kill chaos
// (test/chaos/kill-*.ts) runs 1 to 5 kills in a row at random moments.
//
// Between a kill and the restart the test moves the dead job's heartbeat an hour back in SQL (as if
// the wait had passed) instead of waiting out queue.heartbeat_seconds (at least 10 s) each time;
// test/integration/crash.test.ts waits out a real one.
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../../daemon/store/db.js";
import { testBackends, type Backend } from "../helpers/backends.js";
import { spawnClipd, until, type Spawned } from "../helpers/cli.js";
import { daemonEnv, OPS_TOKEN } from "../helpers/daemon-config.js";

const LIMIT = 3;

describe.each(testBackends())("a step killed again and again on %s", (backend: Backend) => {
  const procs: Spawned[] = [];
  afterAll(() => procs.forEach((p) => p.kill("SIGKILL")));

  it.each([LIMIT - 1, LIMIT])("%i kill(s) in a row", async (k) => {
    const d = await daemonEnv(backend, { queue: { crash_limit: LIMIT } });
    let daemon: Spawned | undefined;
    let url = "";
    const start = async (faults: string) => {
      daemon = spawnClipd(["start"], { ...d.env, CLIPD_FAULTS: faults });
      procs.push(daemon);
      url = (await daemon.waitFor(/is up: (http:\/\/[\d.:]+)/, 120_000))[1]!;
    };
    const ops = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${url}${p}`, {
        method,
        headers: { authorization: `Bearer ${OPS_TOKEN}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await res.json()) as Record<string, any>;
    };
    /** The dead worker's job: its heartbeat an hour back, so the restarted queue hands it out again. */
    const lapse = async () => {
      const db = await openDb({ databaseUrl: d.databaseUrl, dataDir: d.dataDir });
      try {
        await db.query(
          `update pgboss.job set heartbeat_on = heartbeat_on - interval '1 hour' ` +
            `where name = 'clipd-steps' and state = 'active'`,
        );
      } finally {
        await db.close();
      }
    };

    await start("step:sleep");
    const runId = String((await ops("POST", "/api/v1/runs", { pipeline: "t-crash", input: {} })).run_id);
    let kills = 0;
    let run: Record<string, any> | undefined;
    for (;;) {
      // Either the daemon dies at the crash point or the run ends.
      const died = await Promise.race([
        daemon!.exited.then(() => true),
        until(
          async () => {
            const r = await ops("GET", `/api/v1/runs/${runId}`).catch(() => undefined);
            return r && ["succeeded", "failed", "cancelled"].includes(r.state) ? r : undefined;
          },
          { what: "the run to end", timeoutMs: 180_000, intervalMs: 200 },
        ).then((r) => {
          run = r;
          return false;
        }),
      ]);
      if (!died) break;
      kills++;
      await lapse();
      await start(kills < k ? "step:sleep" : "");
    }
    expect(kills).toBe(Math.min(k, LIMIT));
    const sleep = run!.steps.find((s: { stage: string }) => s.stage === "sleep");
    expect(sleep.crashes).toBe(Math.min(k, LIMIT));
    // No step error was recorded for a crash, and none of the step's retries (0) were spent.
    expect(sleep.errors ?? []).toEqual(k >= LIMIT ? [expect.objectContaining({ code: "crashed_repeatedly" })] : []);
    if (k < LIMIT) {
      expect(run!.state).toBe("succeeded");
      expect(sleep.state).toBe("succeeded");
    } else {
      expect(run!.state).toBe("failed");
      expect(run!.error).toMatchObject({ code: "crashed_repeatedly", stage: "sleep" });
      expect(run!.error.message).toMatch(/worker died 3 times/);
    }
    // Nothing left running, no job left behind, and the failure event written once.
    daemon!.kill("SIGTERM");
    await daemon!.exited;
    const check = await openDb({ databaseUrl: d.databaseUrl, dataDir: d.dataDir });
    try {
      const live = await check.query(
        `select count(*)::int as n from pgboss.job where name = 'clipd-steps' ` +
          `and state in ('created', 'retry', 'active')`,
      );
      expect(live.rows[0].n).toBe(0);
      const running = await check.query(`select count(*)::int as n from runs where state in ('queued', 'running')`);
      expect(running.rows[0].n).toBe(0);
      const events = await check.query(`select type from events where run_id = $1`, [runId]);
      expect(events.rows.map((r: { type: string }) => r.type)).toEqual(k >= LIMIT ? ["test.failed"] : []);
    } finally {
      await check.close();
    }
  });
});
