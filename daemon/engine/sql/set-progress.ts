/**
 * Progress is not a transition: it changes no position, takes no lock and runs outside any
 * transaction. It answers the run's state so that the writer can stop a cancelled step early.
 */
import type { Queryable } from "../../store/db.js";
import type { RunState } from "../run.js";

export async function setProgress(
  q: Queryable,
  runId: string,
  progress: number,
  note: string | null,
  etaSeconds: number | null = null,
): Promise<RunState | undefined> {
  const r = await q.query<{ state: RunState }>(
    `update runs set progress = $2, progress_note = $3, eta_at = now() + make_interval(secs ` +
      `=> $4::float8), updated_at = now() where id = $1 returning state`,
    [runId, progress, note, etaSeconds],
  );
  return r.rows[0]?.state;
}
