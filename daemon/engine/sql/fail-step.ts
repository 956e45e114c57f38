/**
 * Transition: a step failed for good (a non-retryable StageError, or its retries are spent). In
 * one transaction, with the run row locked: the step record gets the error; a failed main step
 * sets the run's error and, when the pipeline has `on_failure` steps, switches the run to that
 * phase and sends its first job; otherwise the run is failed and the run-end hooks run. A failing
 * on_failure step keeps the main step's error, which is the one the user needs. A job that is no
 * longer current changes nothing.
 */
import type { Logger } from "pino";
import { codeOf, isCurrent, stepsOf, upsertStep, type Phase, type Run } from "../run.js";
import type { Queryable } from "../../store/db.js";
import { withRunLocked } from "../run-store.js";
import { isStageError } from "../stage.js";
import { clientErrorMessage } from "../client-error.js";
import { enqueueStep, type TransitionContext } from "./context.js";

export async function failStep(
  ctx: TransitionContext,
  runId: string,
  phase: Phase,
  index: number,
  err: unknown,
  attempt: number,
  log: Logger,
): Promise<void> {
  await withRunLocked(ctx.db, runId, async (tx, run) => {
    if (!isCurrent(run, phase, index)) return;
    await failLocked(ctx, tx, run, err, attempt, log);
  });
}

/**
 * Fails the run's current step with `err`, the run's row already locked in `tx` and known to be
 * current. Shared by failStep and the queue reconciliation (lose-step.ts), so a step the queue lost
 * ends exactly like one that failed: on_failure steps first, then the run-end hooks.
 */
export async function failLocked(
  ctx: TransitionContext,
  tx: Queryable,
  run: Run,
  err: unknown,
  attempt: number,
  log: Logger,
): Promise<void> {
  const runId = run.id;
  const { phase, current_step: index } = run;
  const list = stepsOf(run.plan, phase);
  const info = codeOf(err);
  const prev = run.steps.find((s) => s.phase === phase && s.index === index);
  const steps = upsertStep(run.steps, {
    phase,
    index,
    stage: list[index]!.stage,
    state: "failed",
    attempts: attempt,
    finished_at: new Date().toISOString(),
    errors: [...(prev?.errors ?? []), { attempt, ...info, at: new Date().toISOString() }],
  });
  const details = isStageError(err) && err.details ? err.details : {};
  // The run's error reaches clients (episodes, jobs, transcripts, webhooks): cleaned of server
  // paths and extra stderr lines; the step record above and the log keep the full text.
  const shown = clientErrorMessage(info.message);
  if (phase === "main" && shown !== info.message) {
    const stderr = (err as { stderr?: unknown })?.stderr;
    log.info(
      { detail: info.message, ...(typeof stderr === "string" && stderr ? { stderr: stderr.slice(-4000) } : {}) },
      "step error cleaned for clients",
    );
  }
  const error =
    phase === "main" ? { ...details, ...info, message: shown, stage: list[index]!.stage, step: index } : run.error;
  if (phase === "main" && run.plan.on_failure.length) {
    await tx.query(
      `update runs set phase = 'on_failure', current_step = 0, current_stage ` +
        `= $2, steps = $3, error = $4, updated_at = now() where id = $1`,
      [runId, run.plan.on_failure[0]!.stage, JSON.stringify(steps), JSON.stringify(error)],
    );
    await enqueueStep(ctx.queue, tx, { runId, phase: "on_failure", index: 0 }, run.plan.on_failure[0]!);
    log.info("running on_failure steps");
  } else {
    await tx.query(
      `update runs set state = 'failed', current_stage = null, steps = $2, error ` +
        `= $3, finished_at = now(), updated_at = now() where id = $1`,
      [runId, JSON.stringify(steps), JSON.stringify(error)],
    );
    await ctx.ended(tx, runId);
  }
}
