import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testBackends } from "../helpers/backends.js";
import { openTestApp, type TestApp } from "../helpers/app.js";
import { until } from "../helpers/cli.js";

describe.each(testBackends())("runner on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(backend);
  });
  afterAll(async () => {
    await t?.close();
  });
  const executions = async () =>
    (await readFile(path.join(t.dataDir, "markers", "executions.log"), "utf8").catch(() => ""))
      .trim()
      .split("\n")
      .filter(Boolean);

  it("runs every step in order, merges outputs and records the event with the run", async () => {
    const run = await t.app.runner.startRun("t-chain", { total: 1 });
    expect(run.state).toBe("queued");
    const done = await t.app.runner.waitForRun(run.id, { timeoutMs: 30_000 });
    expect(done.state).toBe("succeeded");
    expect(done.progress).toBe(100);
    expect(done.output.total).toBe(12);
    expect(done.output.seen_a && done.output.seen_b).toBe(true);
    expect(done.steps.map((s) => [s.stage, s.state])).toEqual([
      ["record", "succeeded"],
      ["record", "succeeded"],
      ["notify", "succeeded"],
    ]);
    const lines = (await executions()).filter((l) => l.startsWith(run.id));
    expect(lines.map((l) => l.split(" ")[2])).toEqual(["a", "b"]);
    const { rows } = await t.app.db.query(`select type, data from events where run_id = $1`, [run.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].type).toBe("test.done");
  });

  it("fails at once on a non-retryable StageError, keeps its code, and runs on_failure", async () => {
    const run = await t.app.runner.startRun("t-fail", {});
    const done = await t.app.runner.waitForRun(run.id, { timeoutMs: 30_000 });
    expect(done.state).toBe("failed");
    expect(done.error).toMatchObject({ code: "bad_input", stage: "fail", step: 1 });
    const failStep = done.steps.find((s) => s.stage === "fail")!;
    expect(failStep.attempts).toBe(1);
    expect((await executions()).some((l) => l.startsWith(run.id) && l.includes(" never "))).toBe(false);
    const { rows } = await t.app.db.query(`select type from events where run_id = $1`, [run.id]);
    expect(rows.map((r: any) => r.type)).toEqual(["test.failed"]);
  });

  it("retries a retryable failure with the step's policy and then succeeds", async () => {
    const run = await t.app.runner.startRun("t-flaky", {});
    const done = await t.app.runner.waitForRun(run.id, { timeoutMs: 60_000 });
    expect(done.state).toBe("succeeded");
    expect(done.output.attempts).toBe(3);
    expect(done.steps[0]!.errors).toHaveLength(2);
  });

  it("treats a plain exception as retryable until the retries run out", async () => {
    const run = await t.app.runner.startRun("t-crashy", {});
    const done = await t.app.runner.waitForRun(run.id, { timeoutMs: 60_000 });
    expect(done.state).toBe("failed");
    expect(done.error?.code).toBe("stage_crashed");
    expect(done.steps[0]!.attempts).toBe(2);
  });

  it("skips steps whose when: condition is false", async () => {
    const run = await t.app.runner.startRun("t-when", { total: 0, options: { flag: true } });
    const done = await t.app.runner.waitForRun(run.id, { timeoutMs: 30_000 });
    expect(done.state).toBe("succeeded");
    expect(done.steps.map((s) => s.state)).toEqual(["succeeded", "skipped", "succeeded"]);
    expect(done.output.total).toBe(2);
  });

  it("applies --set style overrides to the plan and refuses unknown or invalid ones", async () => {
    const plan = t.app.runner.planFor("t-chain", { "record.add": 5 });
    expect(plan.steps.map((s) => s.with.add)).toEqual([5, 5, undefined]);
    expect(() => t.app.runner.planFor("t-chain", { nope: 1 })).toThrow(/nope/);
    expect(() => t.app.runner.planFor("t-chain", { add: "x" })).toThrow(/add/);
    expect(() => t.app.runner.planFor("missing", {})).toThrow(/no pipeline named "missing"/);
  });

  it("cancels a run: the running step is aborted and no further step runs", async () => {
    const run = await t.app.runner.startRun("t-sleep", {});
    await until(
      async () =>
        (await t.app.runner.getRun(run.id))?.current_stage === "sleep" &&
        existsSync(path.join(t.dataDir, "markers", `${run.id}.sleeping`)),
      { what: "sleep step to start" },
    );
    const cancelled = await t.app.runner.cancelRun(run.id);
    expect(cancelled?.state).toBe("cancelled");
    await until(() => t.app.queue.activeLocal() === 0, { what: "the worker to let go of the step", timeoutMs: 10_000 });
    const after = await t.app.runner.getRun(run.id);
    expect(after?.state).toBe("cancelled");
    expect((await executions()).some((l) => l.startsWith(run.id))).toBe(false);
  });
});
