/**
 * Transition: a step succeeded (or was skipped by its `when:`). In one transaction, with the run
 * row locked: the step record and the merged output are written, the events the stage returned
 * are recorded, and either the next step's job is sent or the run ends (succeeded after the main
 * steps, failed after the on_failure steps) and the run-end hooks run. A job that is no longer
 * current (a duplicate, or a run cancelled meanwhile) changes nothing.
 */
import { recordEvent } from "../events.js";
import { isCurrent, stepsOf, upsertStep, type Phase, type Run } from "../run.js";
import { withRunLocked } from "../run-store.js";
import type { StageOutput } from "../stage.js";
import type { Queryable } from "../../store/db.js";
import { enqueueStep, type TransitionContext } from "./context.js";

export interface StepResult {
  output?: StageOutput;
  skipped?: boolean;
}

export async function finishStep(
  ctx: TransitionContext,
  runId: string,
  phase: Phase,
  index: number,
  result: StepResult,
): Promise<void> {
  await withRunLocked(ctx.db, runId, async (tx, run) => {
    if (!isCurrent(run, phase, index)) return;
    const { _events, ...output } = (result.output ?? {}) as StageOutput;
    const list = stepsOf(run.plan, phase);
    const steps = upsertStep(run.steps, {
      phase,
      index,
      stage: list[index]!.stage,
      state: result.skipped ? "skipped" : "succeeded",
      attempts: run.steps.find((s) => s.phase === phase && s.index === index)?.attempts ?? 0,
      finished_at: new Date().toISOString(),
      output: result.skipped ? undefined : output,
    });
    const merged = { ...run.output, ...output };
    await recordStageEvents(ctx, tx, run, _events);
    const next = index + 1;
    if (next < list.length) {
      // Progress jumps to the step boundary; an on_failure step does not move the bar.
      const progress = phase === "main" ? Math.round((next / run.step_count) * 1000) / 10 : run.progress;
      await tx.query(
        `update runs set current_step = $2, current_stage = $3, steps = $4, output ` +
          `= $5, progress = $6, progress_note = null, eta_at = null, updated_at = ` +
          `now() where id = $1`,
        [runId, next, list[next]!.stage, JSON.stringify(steps), JSON.stringify(merged), progress],
      );
      await enqueueStep(ctx.queue, tx, { runId, phase, index: next }, list[next]!);
    } else {
      const state = phase === "main" ? "succeeded" : "failed";
      await tx.query(
        `update runs set state = $2, current_step = $3, current_stage = null, steps = $4, output = $5,
           progress = case when $2 = 'succeeded' then 100 else progress end, progress_note = null, eta_at = null, finished_at = now(), updated_at = now() where id = $1`,
        [runId, state, next, JSON.stringify(steps), JSON.stringify(merged)],
      );
      await ctx.ended(tx, runId);
    }
  });
}

/**
 * The events a stage returned, written in the step's transaction. Each starts as the run's own
 * record; the policy the root gave decides whose it is and whether it is delivered.
 */
async function recordStageEvents(ctx: TransitionContext, tx: Queryable, run: Run, events: unknown): Promise<void> {
  for (const ev of Array.isArray(events) ? events : []) {
    const own = {
      type: String(ev.type),
      runId: run.id,
      accountId: null,
      livemode: false,
      data: { ...((ev.data ?? {}) as Record<string, unknown>) },
      deliver: false,
    };
    await recordEvent(tx, ctx.stageEvent(run, own), ctx.queue);
  }
}
