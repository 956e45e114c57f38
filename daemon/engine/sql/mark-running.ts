/**
 * Transition: a step starts (run queued → running on its first step). Records the attempt on the
 * step; the run keeps whatever later state it has (a cancel that came first is not undone).
 */
import type { Db } from "../../store/db.js";
import { upsertStep, type Phase } from "../run.js";
import { withRunLocked } from "../run-store.js";

export async function markRunning(
  db: Db,
  runId: string,
  phase: Phase,
  index: number,
  stage: string,
  attempt: number,
): Promise<void> {
  await withRunLocked(db, runId, async (tx, run) => {
    const steps = upsertStep(run.steps, {
      phase,
      index,
      stage,
      state: "running",
      attempts: attempt,
      started_at: new Date().toISOString(),
    });
    await tx.query(
      `update runs set state = case when state = 'queued' then 'running' else state end, current_stage = $2, steps = $3,
         started_at = coalesce(started_at, now()), updated_at = now() where id = $1`,
      [runId, stage, JSON.stringify(steps)],
    );
  });
}
