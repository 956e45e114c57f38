/**
 * Reading runs: one row, the state alone (for the cancel watch), a row locked for a transition,
 * and polling until a run ends. Nothing here writes; the writes are the transitions in `sql/`.
 */
import type { Db, Queryable } from "../store/db.js";
import { normalise, RunError, TERMINAL, type Run, type RunState } from "./run.js";

export async function readRun(q: Queryable, id: string): Promise<Run | undefined> {
  const { rows } = await q.query<Run>(`select * from runs where id = $1`, [id]);
  return rows[0] ? normalise(rows[0]) : undefined;
}

/** Just the state: cheap enough to ask every second while a step runs. */
export async function readRunState(q: Queryable, id: string): Promise<RunState | undefined> {
  const { rows } = await q.query<{ state: RunState }>(`select state from runs where id = $1`, [id]);
  return rows[0]?.state;
}

/**
 * Runs `fn` in a transaction with the run's row locked (`select … for update`). Every transition
 * goes through here, so two workers holding jobs for the same run take turns, and each one sees
 * the row as the other left it. Undefined when the run does not exist.
 */
export async function withRunLocked<T>(
  db: Db,
  runId: string,
  fn: (tx: Queryable, run: Run) => Promise<T>,
): Promise<T | undefined> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<Run>(`select * from runs where id = $1 for update`, [runId]);
    if (!rows[0]) return undefined;
    return fn(tx, normalise(rows[0]));
  });
}

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Sees every change of state, phase, step or progress. */
  onUpdate?: (run: Run) => void;
  signal?: AbortSignal;
}

/**
 * Polls until the run ends. Polling, not LISTEN, because it must work the same on PGlite and on
 * PostgreSQL and from a process that is not the worker (the CLI's progress bar, the tests).
 */
export async function waitForRun(q: Queryable, id: string, opts: WaitOptions = {}): Promise<Run> {
  const deadline = Date.now() + (opts.timeoutMs ?? 24 * 3600_000);
  let last = "";
  for (;;) {
    const run = await readRun(q, id);
    if (!run) throw new RunError("not_found", `run ${id} does not exist`);
    const sig = `${run.state}:${run.phase}:${run.current_step}:${run.progress}:${run.progress_note}:${run.eta_at}`;
    if (sig !== last) {
      last = sig;
      opts.onUpdate?.(run);
    }
    if (TERMINAL.has(run.state)) return run;
    if (Date.now() > deadline) throw new RunError("timeout", `run ${id} did not finish in time (state ${run.state})`);
    if (opts.signal?.aborted) throw new RunError("aborted", "wait aborted");
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 150));
  }
}
