/**
 * Transition: an attempt failed and the queue will retry it. Only the step record changes (state
 * `retrying`, the error appended); the run stays where it is, so the retried job is still current.
 */
import type { Db } from "../../store/db.js";
import { codeOf, isCurrent, type Phase } from "../run.js";
import { withRunLocked } from "../run-store.js";

export async function recordRetry(
  db: Db,
  runId: string,
  phase: Phase,
  index: number,
  err: unknown,
  attempt: number,
): Promise<void> {
  await withRunLocked(db, runId, async (tx, run) => {
    // A run that moved on or ended meanwhile (lost, cancelled) keeps its record as it was left.
    if (!isCurrent(run, phase, index)) return;
    const rec = run.steps.find((s) => s.phase === phase && s.index === index);
    if (!rec) return;
    rec.state = "retrying";
    rec.errors = [...(rec.errors ?? []), { attempt, ...codeOf(err), at: new Date().toISOString() }];
    await tx.query(`update runs set steps = $2, updated_at = now() where id = $1`, [runId, JSON.stringify(run.steps)]);
  });
}
