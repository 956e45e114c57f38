// A planned stop hands running work back (issue 36, item 8). The daemon is stopped with SIGTERM
// while a step with no retries for errors is running and past its grace period; at the next start
// the step runs again and the run succeeds. Before, the abort was recorded as the step's error and
// the run failed for good. The stop is counted on the step (`stops`), never as an error or a crash.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { testBackends, type Backend } from "../helpers/backends.js";
import { spawnClipd, until, type Spawned } from "../helpers/cli.js";
import { daemonEnv, OPS_TOKEN } from "../helpers/daemon-config.js";

describe.each(testBackends())("a step running at a planned stop on %s", (backend: Backend) => {
  const procs: Spawned[] = [];
  afterAll(() => procs.forEach((p) => p.kill("SIGKILL")));

  it("is handed back and runs again at the next start", async () => {
    const d = await daemonEnv(backend, { queue: { shutdown_grace_seconds: 1 }, server: { drain_seconds: 0 } });
    let url = "";
    const start = async () => {
      const daemon = spawnClipd(["start"], d.env);
      procs.push(daemon);
      url = (await daemon.waitFor(/is up: (http:\/\/[\d.:]+)/, 120_000))[1]!;
      return daemon;
    };
    const ops = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${url}${p}`, {
        method,
        headers: { authorization: `Bearer ${OPS_TOKEN}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await res.json()) as Record<string, any>;
    };

    const first = await start();
    const runId = String((await ops("POST", "/api/v1/runs", { pipeline: "t-stop", input: {} })).run_id);
    await until(() => existsSync(path.join(d.markers, `${runId}.blocked`)), { what: "the block step to run" });
    first.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(first.output()).toMatch(/step handed back: the worker is stopping/);

    await start();
    const run = await until(
      async () => {
        const r = await ops("GET", `/api/v1/runs/${runId}`).catch(() => undefined);
        return r && ["succeeded", "failed", "cancelled"].includes(r.state) ? r : undefined;
      },
      { what: "the run to end after the restart", timeoutMs: 180_000, intervalMs: 200 },
    );
    expect(run.state, JSON.stringify(run)).toBe("succeeded");
    const block = run.steps.find((s: { stage: string }) => s.stage === "block");
    expect(block).toMatchObject({ state: "succeeded", attempts: 2, stops: 1 });
    expect(block.errors ?? []).toEqual([]);
    expect(block.crashes ?? 0).toBe(0);
    expect(run.output).toMatchObject({ seen_before: true, seen_after: true });
  }, 300_000);
});
