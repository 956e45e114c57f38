/**
 * One step of a run, as the queue hands it out: the stale-job and crash checks, the step's
 * condition, the stage run in its own folder under its abort signal, and the transition that
 * records the result or the error. Kept apart from the Runner class, which starts, reads and
 * sweeps runs, because this is the one path a step's work takes and reads best whole.
 */
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import type { Job } from "pg-boss";
import type { Logger } from "pino";
import type { Config } from "../../config/loader.js";
import { faultPoint } from "../ops/faults.js";
import { fromSpawnError } from "../ops/os-packages.js";
import type { Storage } from "../storage/storage.js";
import type { Db } from "../store/db.js";
import { progressWriter } from "./progress.js";
import type { QueueManager, StepJob } from "./queue.js";
import type { StageRegistry } from "./registry.js";
import { isCurrent, stepsOf } from "./run.js";
import { readRun } from "./run-store.js";
import type { TransitionContext } from "./sql/context.js";
import { failStep } from "./sql/fail-step.js";
import { metrics } from "../ops/metrics.js";
import { finishStep } from "./sql/finish-step.js";
import { markRunning } from "./sql/mark-running.js";
import { recordRetry } from "./sql/record-retry.js";
import { recordCrash } from "./sql/record-crash.js";
import { handBack } from "./sql/hand-back.js";
import { crashedRepeatedly } from "./sql/lose-step.js";
import { isStageError, StageError, type StageContext, type StageOutput } from "./stage.js";
import { raceAbort, stepAbort } from "./step-abort.js";
import { compileWhen } from "./when.js";

/** What a step needs of the runner: its dependencies, the transitions and the shutdown signal. */
export interface StepDeps {
  db: Db;
  queue: QueueManager;
  registry: StageRegistry;
  storage: Storage;
  log: Logger;
  config: Config;
  transitions: TransitionContext;
  /** Aborted after the grace period of a shutdown (Runner.abortAll). */
  shutdown: AbortSignal;
}

/** The queue handler for one step job. */
export async function handleStep(deps: StepDeps, job: Job<StepJob>): Promise<void> {
  const { runId, phase, index } = job.data;
  const run = await readRun(deps.db, runId);
  if (!run || !isCurrent(run, phase, index)) return; // stale
  const step = stepsOf(run.plan, phase)[index];
  const log = deps.log.child({ runId, pipeline: run.pipeline, phase, step: index, stage: step?.stage });
  if (!step) return;
  // An on_failure step sees what went wrong beside the state the main steps built.
  const state = phase === "on_failure" ? { ...run.output, error: run.error } : run.output;
  const attempt = job.retryCount + 1;
  const rec = run.steps.find((s) => s.phase === phase && s.index === index);
  if (job.retryCount > 0 && rec?.state === "running") {
    // The job came back while the step still says running: its last worker died under it.
    const crashes = await recordCrash(deps.db, runId, phase, index);
    if (crashes === undefined) return;
    const limit = deps.queue.crashLimit;
    log.warn({ crashes, limit, attempt }, "the worker running this step died; the step is picked up again");
    if (crashes >= limit) {
      await failStep(deps.transitions, runId, phase, index, crashedRepeatedly(step.stage, crashes), attempt, log);
      return;
    }
  }
  // Only the step's own errors spend its retries; crashes have their own limit above.
  const errorsBefore = rec?.errors?.length ?? 0;
  if (step.when && !compileWhen(step.when)(state)) {
    log.info({ when: step.when }, "step skipped by its condition");
    await finishStep(deps.transitions, runId, phase, index, { skipped: true });
    return;
  }
  const stage = deps.registry.stages.get(step.stage);
  if (!stage) {
    await failStep(
      deps.transitions,
      runId,
      phase,
      index,
      new StageError("unknown_stage", `stage ${step.stage} is not installed on this worker`),
      attempt,
      log,
    );
    return;
  }
  await markRunning(deps.db, runId, phase, index, step.stage, attempt);
  log.info({ attempt }, "step started");
  // The crash tests kill the worker here: the step is marked running and nothing else is written.
  faultPoint(`step:${step.stage}`);
  const started = performance.now();
  const took = () => (performance.now() - started) / 1000;

  const abort = stepAbort({
    db: deps.db,
    runId,
    stage: step.stage,
    timeoutSeconds: step.timeout,
    job: job.signal,
    shutdown: deps.shutdown,
  });
  // A fresh folder per attempt: a retry never sees the half-written files of the one before.
  const workdir = path.join(deps.config.data_dir, "work", runId, `${phase}-${index}-${attempt}`);
  await mkdir(workdir, { recursive: true });
  const progress = progressWriter(
    deps.db,
    runId,
    run.step_count,
    phase === "main" ? index : run.step_count,
    abort.abort,
  );
  const ctx: StageContext = {
    signal: abort.signal,
    log,
    progress: progress.report,
    workdir,
    storage: deps.storage,
    runId,
    stepId: `${phase}:${index}`,
    pipeline: run.pipeline,
    options: step.with,
    config: deps.config,
  };
  let output: StageOutput;
  try {
    output = await raceAbort(stage.run(state, ctx), abort.signal);
    if (!output || typeof output !== "object" || Array.isArray(output)) {
      throw new StageError(
        "bad_output",
        `stage ${step.stage} returned ${Array.isArray(output) ? "an array" : typeof output}, not an object`,
      );
    }
  } catch (caught) {
    if (deps.shutdown.aborted && abort.signal.reason === deps.shutdown.reason) {
      // A planned stop, not the step's fault: handed back to the queue like a crash, spending no
      // retry, so the next start (or another worker) runs it again (issue 36).
      log.warn({ attempt }, "step handed back: the worker is stopping");
      await handBack(deps.db, runId, phase, index);
      throw caught;
    }
    const err = fromSpawnError(caught); // a plugin's own spawn of a program that is not installed
    const final = (isStageError(err) && !err.retryable) || errorsBefore >= step.retry.limit;
    log[final ? "error" : "warn"](
      { err: errInfo(err), attempt, final },
      final ? "step failed" : "step failed, will retry",
    );
    metrics.step(step.stage, final ? "failed" : "retry", took());
    if (final) {
      await failStep(deps.transitions, runId, phase, index, err, attempt, log);
      return;
    }
    await recordRetry(deps.db, runId, phase, index, err, attempt);
    throw err; // the queue retries with the step's policy
  } finally {
    abort.dispose();
    await progress.flush();
    await rm(workdir, { recursive: true, force: true }).catch(() => {});
  }
  metrics.step(step.stage, "ok", took(), output);
  await finishStep(deps.transitions, runId, phase, index, { output });
  log.info("step finished");
}

/** What the log keeps of an error: a StageError's stack is noise (it was thrown on purpose). */
export function errInfo(err: unknown) {
  const e = err as Error & { code?: string };
  return { message: e?.message ?? String(err), code: e?.code, stack: isStageError(e) ? undefined : e?.stack };
}
