/**
 * The runner: executes pipeline runs one step at a time on the queue.
 *
 * Guarantees:
 * - A run's plan (its steps with their options) is fixed and validated when the run starts, so an
 *   ops edit to a YAML file never changes a run in flight (plan.ts).
 * - Each step is one queue job. A step's result, the run's next position and the job for the next
 *   step are written in one transaction: either all happen or none (sql/finish-step.ts, sql/fail-step.ts).
 * - A job that does not match the run's current position is a stale duplicate and does nothing, so
 *   completed steps are never repeated, after a crash or otherwise (checked here before the stage
 *   runs, and again under the row lock by every transition).
 * - A `StageError` with `retryable: false` fails the run at once; other errors are retried with the
 *   step's policy, then fail the run. A failed main phase runs the pipeline's `on_failure` steps.
 * - A worker that dies under a step (a job handed out again while its record says running) is a
 *   crash, counted apart from errors against `queue.crash_limit` (sql/record-crash.ts).
 * - No run waits on a job the queue gave up: pg-boss's dead letters and a sweep every heartbeat
 *   interval end such runs as failed, on_failure steps included (sql/lose-step.ts).
 * - Events a stage returns (`_events`) are written in the same transaction as its step result.
 *
 * This module starts, reads and sweeps runs and hands each step job to step-handler.ts; planning,
 * reading runs, the state-transition SQL and progress throttling live beside it, and the rule for
 * whose a stage's event is comes from the root.
 */
import { randomUUID } from "node:crypto";
import type { Job } from "pg-boss";
import type { Logger } from "pino";
import type { Config } from "../../config/loader.js";
import { faultPoint } from "../ops/faults.js";
import type { Storage } from "../storage/storage.js";
import type { Db, Queryable } from "../store/db.js";
import { planFor, takesOption } from "./plan.js";
import type { Pipeline } from "./pipelines.js";
import { STEP_LOST_QUEUE, type QueueManager, type StepJob } from "./queue.js";
import type { StageRegistry } from "./registry.js";
import type { Run, RunOrigin } from "./run.js";
import { readRun, waitForRun, type WaitOptions } from "./run-store.js";
import { cancelRun } from "./sql/cancel-run.js";
import { runOwnEvent, type StageEventPolicy, type TransitionContext } from "./sql/context.js";
import { insertRun } from "./sql/insert-run.js";
import { findLostRuns, loseStep } from "./sql/lose-step.js";
import { errInfo, handleStep } from "./step-handler.js";

// The run record's types stay importable from here, where callers have always found them.
export { RunError, TERMINAL, type Phase, type Run, type RunPlan, type RunState, type StepRecord } from "./run.js";
export type { StageEventPolicy } from "./sql/context.js";

export interface RunnerDeps {
  db: Db;
  queue: QueueManager;
  registry: StageRegistry;
  pipelines: Map<string, Pipeline>;
  storage: Storage;
  log: Logger;
  config: Config;
  /** Whose a stage's `_events` are and whether they are delivered; default: the run's own record only. */
  stageEvents?: StageEventPolicy;
}

export interface StartRunOptions {
  /** Where the work came from; work started without saying so is an operator's ("ops"). */
  origin?: RunOrigin;
  originRef?: string;
  /** Option overrides: "key" applies to every step whose stage has that option; "stage.key" to one stage. */
  set?: Record<string, unknown>;
  tx?: Queryable;
}

/**
 * Called inside the transaction that ends a run (succeeded, failed after its on_failure steps, or
 * cancelled), so domain state that follows from the run (an episode's status, a charge, the next
 * run) commits together with it or not at all.
 */
export type RunFinisher = (tx: Queryable, run: Run, runner: Runner) => Promise<void>;

export class Runner {
  private readonly shutdown = new AbortController();
  private readonly finishers: RunFinisher[] = [];
  private readonly transitions: TransitionContext;
  private sweepTimer?: NodeJS.Timeout;
  private sweeping?: Promise<number>;

  constructor(private readonly deps: RunnerDeps) {
    this.transitions = {
      db: deps.db,
      queue: deps.queue,
      ended: (tx, runId) => this.runFinishers(tx, runId),
      stageEvent: deps.stageEvents ?? runOwnEvent,
    };
  }

  /** Registers a hook that runs in the transaction that ends every run. */
  onRunEnd(fn: RunFinisher): void {
    this.finishers.push(fn);
  }

  private async runFinishers(tx: Queryable, runId: string) {
    if (!this.finishers.length) return;
    const run = await this.getRun(runId, tx);
    if (!run) return;
    for (const fn of this.finishers) await fn(tx, run, this);
    // Everything that follows from the run is written but not committed: the kill tests stop here.
    faultPoint(`run-end:${run.pipeline}`);
  }

  get pipelines() {
    return this.deps.pipelines;
  }

  /** For services that enqueue in a run's transaction (events.ts recordEvent). */
  get queue(): QueueManager {
    return this.deps.queue;
  }

  /** Builds the run's plan: the pipeline's steps with `set` overrides applied and re-validated. */
  planFor(pipelineName: string, set: Record<string, unknown> = {}): Run["plan"] {
    return planFor({ pipelines: this.deps.pipelines, stages: this.deps.registry.stages }, pipelineName, set);
  }

  /** Whether some step of the pipeline takes the `set` key ("name", or "stage.name" for one stage). */
  takesOption(pipelineName: string, key: string): boolean {
    return takesOption({ pipelines: this.deps.pipelines, stages: this.deps.registry.stages }, pipelineName, key);
  }

  // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
  async startRun(pipelineName: string, input: Record<string, any>, opts: StartRunOptions = {}): Promise<Run> {
    const plan = this.planFor(pipelineName, opts.set);
    const run = {
      id: randomUUID(),
      pipeline: pipelineName,
      input,
      plan,
      origin: opts.origin ?? "ops",
      originRef: opts.originRef ?? null,
    };
    if (opts.tx) await insertRun(this.deps.queue, opts.tx, run);
    else await this.deps.db.transaction((tx) => insertRun(this.deps.queue, tx, run));
    this.deps.log.info({ runId: run.id, pipeline: pipelineName, origin: run.origin }, "run queued");
    return (await this.getRun(run.id, opts.tx))!;
  }

  async getRun(id: string, q: Queryable = this.deps.db): Promise<Run | undefined> {
    return readRun(q, id);
  }

  async cancelRun(id: string): Promise<Run | undefined> {
    await cancelRun(this.transitions, id);
    return this.getRun(id);
  }

  /** Polls until the run ends. `onUpdate` sees every change of step or progress. */
  async waitForRun(id: string, opts: WaitOptions = {}): Promise<Run> {
    return waitForRun(this.deps.db, id, opts);
  }

  /**
   * Works the step queue and its dead letters, and sweeps for lost runs now and then every
   * heartbeat interval (a lapsed heartbeat is the soonest the queue can give a job up).
   */
  async work(opts: { sweepEveryMs?: number } = {}): Promise<void> {
    await this.deps.queue.workSteps((job) => this.handle(job));
    await this.deps.queue.work<StepJob>(STEP_LOST_QUEUE, async (data) => {
      await loseStep(this.transitions, data.runId, this.deps.log);
    });
    await this.sweepLost();
    const every = opts.sweepEveryMs ?? this.deps.config.queue.heartbeat_seconds * 1000;
    this.sweepTimer = setInterval(() => void this.sweepLost().catch(() => {}), every);
    this.sweepTimer.unref();
  }

  /** Stops the sweep (the queue's workers are stopped by the queue). */
  stopSweeping(): void {
    clearInterval(this.sweepTimer);
  }

  /**
   * Ends every queued or running run whose current step has no job left on the queue (expired,
   * failed, removed): at most 100 a sweep, oldest first. Answers how many it ended.
   */
  async sweepLost(): Promise<number> {
    // One sweep at a time in a process; other processes may sweep too (each end is locked and rechecked).
    this.sweeping ??= (async () => {
      let ended = 0;
      try {
        for (const id of await findLostRuns(this.transitions)) {
          if (await loseStep(this.transitions, id, this.deps.log)) ended++;
        }
      } catch (err) {
        this.deps.log.warn({ err: errInfo(err) }, "lost-run sweep failed; the next one tries again");
      } finally {
        this.sweeping = undefined;
      }
      return ended;
    })();
    return this.sweeping;
  }

  /** Aborts running stages (after the grace period of a shutdown). */
  abortAll(reason = "daemon shutting down"): void {
    this.shutdown.abort(new Error(reason));
  }

  /** The queue handler for one step job (step-handler.ts). */
  handle(job: Job<StepJob>): Promise<void> {
    return handleStep({ ...this.deps, transitions: this.transitions, shutdown: this.shutdown.signal }, job);
  }
}
