/**
 * Reconciling runs with the queue. A queued or running run moves only when a job for its current
 * step is handled; when pg-boss gives that job up (retries spent, expired or heartbeat lost at its
 * limit) or the job is gone, nothing would ever move the run again. `findLostRuns` lists such runs
 * (bounded), and `loseStep` ends one as a failed step (`step_lost`, or `crashed_repeatedly` when
 * its worker kept dying), under the row lock and only after checking again that no job is behind
 * it. The failure goes the usual way (fail-step.ts): on_failure steps first, so the failure event
 * is delivered, then the run-end hooks.
 */
import type { Logger } from "pino";
import type { Queryable } from "../../store/db.js";
import { TERMINAL, stepsOf } from "../run.js";
import { withRunLocked } from "../run-store.js";
import { StageError } from "../stage.js";
import type { TransitionContext } from "./context.js";
import { failLocked } from "./fail-step.js";

/** Runs left waiting on a job that no longer exists, oldest first, at most `limit`. */
export async function findLostRuns(ctx: Pick<TransitionContext, "db" | "queue">, limit = 100): Promise<string[]> {
  const { rows } = await ctx.db.query<{ id: string }>(
    `select r.id from runs r where r.state in ('queued', 'running') and not ${ctx.queue.liveStepJobSql("r")}
     order by r.updated_at limit $1`,
    [limit],
  );
  return rows.map((r) => String(r.id));
}

async function hasLiveJob(ctx: Pick<TransitionContext, "queue">, tx: Queryable, runId: string): Promise<boolean> {
  const { rows } = await tx.query(`select 1 from runs r where r.id = $1 and ${ctx.queue.liveStepJobSql("r")}`, [runId]);
  return rows.length > 0;
}

/** Ends the run when its current step has no job behind it; true when it did. */
export async function loseStep(ctx: TransitionContext, runId: string, log: Logger): Promise<boolean> {
  const done = await withRunLocked(ctx.db, runId, async (tx, run) => {
    if (TERMINAL.has(run.state) || (await hasLiveJob(ctx, tx, runId))) return false;
    const step = stepsOf(run.plan, run.phase)[run.current_step];
    if (!step) return false;
    const rec = run.steps.find((s) => s.phase === run.phase && s.index === run.current_step);
    // A record still `running` means the last worker died too, uncounted: the queue gave up on it.
    const crashes = (rec?.crashes ?? 0) + (rec?.state === "running" ? 1 : 0);
    const err =
      crashes >= ctx.queue.crashLimit
        ? crashedRepeatedly(step.stage, crashes)
        : new StageError(
            "step_lost",
            `step ${step.stage} was lost: the queue no longer holds its job (it expired, failed or was removed)` +
              (crashes ? ` after its worker died ${crashes} time(s)` : ""),
            { retryable: false, details: { crashes } },
          );
    log.warn({ runId, phase: run.phase, step: run.current_step, stage: step.stage, code: err.code }, "step lost");
    await failLocked(ctx, tx, run, err, rec?.attempts ?? 0, log);
    return true;
  });
  return done ?? false;
}

/** The error of a run stopped because the worker running one of its steps kept dying. */
export function crashedRepeatedly(stage: string, crashes: number): StageError {
  return new StageError(
    "crashed_repeatedly",
    `step ${stage} was stopped after its worker died ${crashes} times while running it ` +
      "(killed, out of memory or lost its heartbeat)",
    { retryable: false, details: { crashes } },
  );
}
