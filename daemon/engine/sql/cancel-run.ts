/**
 * Transition: queued or running → cancelled. The run-end hooks run in the same transaction, as
 * for any other end. A running step notices within a second (the runner's cancel watch) and its
 * later transitions find the run terminal and do nothing.
 */
import type { TransitionContext } from "./context.js";

/** True when this call cancelled the run (false: it had already ended or does not exist). */
export async function cancelRun(ctx: Pick<TransitionContext, "db" | "ended">, runId: string): Promise<boolean> {
  return ctx.db.transaction(async (tx) => {
    const r = await tx.query(
      `update runs set state = 'cancelled', finished_at = now(), updated_at = ` +
        `now() where id = $1 and state in ('queued', 'running') returning id`,
      [runId],
    );
    if (r.rows.length) await ctx.ended(tx, runId);
    return r.rows.length > 0;
  });
}
