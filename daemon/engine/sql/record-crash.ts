/**
 * Transition: a step's job came back from the queue while the step record still says `running`,
 * so the worker that had it died under it (SIGKILL, out of memory, lost heartbeat) before it could
 * record anything. The crash is counted on the step record, apart from its errors: a crash spends
 * none of the step's retries, and has its own limit (`queue.crash_limit`, checked by the runner).
 * Undefined when the job is no longer current (the run moved on or ended meanwhile).
 */
import type { Db } from "../../store/db.js";
import { isCurrent, upsertStep, type Phase } from "../run.js";
import { withRunLocked } from "../run-store.js";

export async function recordCrash(db: Db, runId: string, phase: Phase, index: number): Promise<number | undefined> {
  return withRunLocked(db, runId, async (tx, run) => {
    if (!isCurrent(run, phase, index)) return undefined;
    const rec = run.steps.find((s) => s.phase === phase && s.index === index);
    // Another worker counted this crash already (the record no longer says running).
    if (rec?.state !== "running") return rec?.crashes ?? 0;
    const crashes = (rec.crashes ?? 0) + 1;
    const steps = upsertStep(run.steps, { ...rec, state: "retrying", crashes });
    await tx.query(`update runs set steps = $2, updated_at = now() where id = $1`, [runId, JSON.stringify(steps)]);
    return crashes;
  });
}
