// Killing a worker with SIGKILL in the middle of a step loses nothing: after a restart the step
// runs again, completed steps are not repeated, and the run finishes.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../daemon/store/db.js";
import { testBackends } from "../helpers/backends.js";
import { spawnClipd, until, type Spawned } from "../helpers/cli.js";
import { daemonEnv } from "../helpers/daemon-config.js";

/** Reads a run straight from the database, as ops would. */
async function readRun(db: Db, id: string) {
  const { rows } = await db.query(`select state, current_step, steps, output from runs where id = $1`, [id]);
  const r = rows[0];
  return (
    r && {
      ...r,
      steps: typeof r.steps === "string" ? JSON.parse(r.steps) : r.steps,
      output: typeof r.output === "string" ? JSON.parse(r.output) : r.output,
    }
  );
}

describe.each(testBackends())("crash recovery on %s", (backend) => {
  const procs: Spawned[] = [];
  afterEach(() => procs.forEach((p) => p.kill("SIGKILL")));

  it("finishes a run after kill -9 mid-step, without repeating finished steps", async () => {
    const d = await daemonEnv(backend);
    // Start the run through the CLI's own code path: a daemon process that we then kill.
    const first = spawnClipd(["start"], d.env);
    procs.push(first);
    await first.waitFor(/is up: /, 90_000);
    const runId = await startRunVia(d.env, first);
    await until(() => existsSync(path.join(d.markers, `${runId}.blocked`)), {
      what: "the block stage to start",
      timeoutMs: 60_000,
    });
    first.kill("SIGKILL");
    await first.exited;

    const second = spawnClipd(["start"], d.env);
    procs.push(second);
    const url = (await second.waitFor(/is up: (http:\/\/[\d.:]+)/, 90_000))[1];
    const run = await until(
      async () => {
        const r = await (
          await fetch(`${url}/api/v1/runs/${runId}`, { headers: { authorization: `Bearer ${d.env.CLIPD_OPS_TOKEN}` } })
        ).json();
        return r.state === "succeeded" ? r : undefined;
      },
      { what: "the run to finish after restart", timeoutMs: 90_000, intervalMs: 500 },
    );
    expect(run.steps.map((s: any) => s.state)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(run.steps[1].attempts).toBeGreaterThanOrEqual(2); // the killed step ran again
    const log = (await readFile(path.join(d.markers, "executions.log"), "utf8"))
      .trim()
      .split("\n")
      .filter((l) => l.startsWith(runId));
    expect(log.map((l) => l.split(" ")[2])).toEqual(["before", "after"]); // "before" not repeated
    second.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  it("lets a running step finish on SIGTERM, within the grace period", async () => {
    const d = await daemonEnv(backend);
    const w = spawnClipd(["start"], d.env);
    procs.push(w);
    await w.waitFor(/is up: /, 90_000);
    const runId = await startRunVia(d.env, w, "t-sleep");
    await until(() => existsSync(path.join(d.markers, `${runId}.sleeping`)), { what: "the sleep stage to start" });
    w.kill("SIGTERM");
    expect(await w.exited).toBe(0);
    const db = await openDb({ databaseUrl: d.databaseUrl, dataDir: d.dataDir });
    try {
      const r = await readRun(db, runId);
      // The 3 s sleep step finished during the grace period and its result was kept.
      expect(r.steps[0]).toMatchObject({ stage: "sleep", state: "succeeded", output: { slept: 3000 } });
      expect(r.current_step).toBe(1);
    } finally {
      await db.close();
    }
  });
});

/** Starts a run inside the running daemon through its ops route (the embedded database belongs to the daemon alone). */
async function startRunVia(env: NodeJS.ProcessEnv, daemon: Spawned, pipeline = "t-block"): Promise<string> {
  const url = daemon.output().match(/is up: (http:\/\/[\d.:]+)/)![1];
  const res = await fetch(`${url}/api/v1/runs`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${env.CLIPD_OPS_TOKEN}` },
    body: JSON.stringify({ pipeline, input: {} }),
  });
  const body = await res.json();
  if (res.status !== 202) throw new Error(`could not start run: ${res.status} ${JSON.stringify(body)}`);
  return body.run_id;
}
