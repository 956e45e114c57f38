/**
 * Transition: a planned stop (SIGTERM, SIGINT) took a step from its worker after the grace period.
 * The step is handed back as a crash hands it back, but it is no crash and no error: the record
 * says `retrying` (so the job's return is not counted as a crash by the next worker) and counts
 * the stop in `stops`; the queue keeps the job and any worker, this one after its restart included,
 * runs the step again from the start. Nothing is recorded when the run moved on or ended meanwhile.
 */
import type { Db } from "../../store/db.js";
import { isCurrent, upsertStep, type Phase } from "../run.js";
import { withRunLocked } from "../run-store.js";

export async function handBack(db: Db, runId: string, phase: Phase, index: number): Promise<void> {
  await withRunLocked(db, runId, async (tx, run) => {
    if (!isCurrent(run, phase, index)) return;
    const rec = run.steps.find((s) => s.phase === phase && s.index === index);
    if (rec?.state !== "running") return;
    const steps = upsertStep(run.steps, { ...rec, state: "retrying", stops: (rec.stops ?? 0) + 1 });
    await tx.query(`update runs set steps = $2, updated_at = now() where id = $1`, [runId, JSON.stringify(steps)]);
  });
}
