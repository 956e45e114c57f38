/**
 * What the state transitions share. Each transition in this folder is one module with its own SQL
 * (after graphile-worker's `sql/` folder), so the statements that move a run can be read, and
 * changed, one at a time. They take this context rather than the runner, so none of them can reach
 * a stage or a worker: a transition only reads the locked row, writes it, and sends the next job.
 */
import type { EventInput } from "../events.js";
import type { PipelineStep } from "../pipelines.js";
import type { QueueManager, StepJob } from "../queue.js";
import type { Run } from "../run.js";
import type { Db, Queryable } from "../../store/db.js";

/**
 * Decides how an event a stage returned (`_events`) is written: whose it is and whether it is
 * delivered. The engine knows no accounts, so the composition root supplies the rule that does
 * (daemon/account/stage-events.ts). `event` comes filled as the run's own record, delivered to no one.
 */
export type StageEventPolicy = (run: Run, event: EventInput) => EventInput;

/** Without a policy a stage's event is only the run's own record (shown in run.json and by the CLI). */
export const runOwnEvent: StageEventPolicy = (_run, event) => event;

export interface TransitionContext {
  db: Db;
  queue: QueueManager;
  /** The run-end hooks, called inside the transaction that ends a run. */
  ended: (tx: Queryable, runId: string) => Promise<void>;
  stageEvent: StageEventPolicy;
}

/**
 * Sends the job for one step in `tx`, so the job exists only if the state change that calls for
 * it commits. The step's YAML `retry` and `timeout` become the job's retry policy and expiry.
 */
export async function enqueueStep(queue: QueueManager, tx: Queryable, job: StepJob, step: PipelineStep): Promise<void> {
  await queue.sendStep(job, {
    retryLimit: step.retry.limit,
    retryDelay: step.retry.delay,
    retryBackoff: step.retry.backoff,
    timeoutSeconds: step.timeout,
    tx,
  });
}
