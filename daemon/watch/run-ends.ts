/**
 * How the watch folder hears that its work ended. The run's end is a hook in the transaction that
 * ends it (runner.onRunEnd), in whichever process worked the last step; a NOTIFY sent there is
 * delivered at commit to every process listening, so the watch role, wherever it runs, settles
 * the file at once instead of polling the runs table.
 */
import type { Runner } from "../engine/runner.js";

export const WATCH_RUN_ENDED = "clipd_watch_run_ended";

/** Registered once per process that works steps (daemon/boot/app.ts). */
export function notifyWatchRunEnds(runner: Runner): void {
  runner.onRunEnd(async (tx, run) => {
    if (run.origin === "watch") await tx.query(`select pg_notify($1, $2)`, [WATCH_RUN_ENDED, run.id]);
  });
}
