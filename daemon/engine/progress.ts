/**
 * Progress throttling. A stage may report progress as often as it likes (ffmpeg does many times a
 * second), but the run row is written only when a report comes more than half a second after the
 * last write; the reports between are dropped except the latest, which the end of the step writes
 * (`flush`), so the last value a stage gave is never lost. Writes are chained, never concurrent,
 * so they land in the order they were made. A failed write is dropped: progress is advice, and
 * the step must not fail for it.
 *
 * Each write answers the run's state, so a cancelled run stops its step at the next report.
 */
import type { Queryable } from "../store/db.js";
import { StageError } from "./stage.js";
import { setProgress } from "./sql/set-progress.js";

/** Milliseconds between two writes of one step's progress. */
export const PROGRESS_INTERVAL_MS = 500;

/**
 * The run's overall percentage while step `index` of `stepCount` is `pct` done, to one decimal.
 * Capped below 100: only the transition that ends the run says 100. On_failure steps pass
 * `index = stepCount`, which holds the bar where the main phase left it.
 */
export function overallProgress(index: number, stepCount: number, pct: number): number {
  const overall = Math.min(
    99.9,
    ((Math.min(index, stepCount) + Math.max(0, Math.min(100, pct)) / 100) / Math.max(1, stepCount)) * 100,
  );
  return Math.round(overall * 10) / 10;
}

export interface ProgressWriter {
  /** What the stage calls (StageContext.progress). */
  report(pct: number, note?: string, etaSeconds?: number): void;
  /** Writes the latest pending report, if any, and waits for every write so far. */
  flush(): Promise<void>;
}

export function progressWriter(
  q: Queryable,
  runId: string,
  stepCount: number,
  index: number,
  abort: (reason: unknown) => void,
): ProgressWriter {
  let pending: { pct: number; note?: string; eta?: number } | undefined;
  let lastWrite = 0;
  const started = Date.now();
  let writing: Promise<void> = Promise.resolve();
  const write = () => {
    if (!pending) return writing;
    const { pct, note } = pending;
    // A stage that gives no estimate of its own gets one from its pace so far (rateEta).
    const eta = pending.eta ?? rateEta(Date.now() - started, pct) ?? undefined;
    pending = undefined;
    lastWrite = Date.now();
    writing = writing
      .then(() =>
        setProgress(
          q,
          runId,
          overallProgress(index, stepCount, pct),
          note ?? null,
          eta !== undefined && Number.isFinite(eta) ? Math.max(0, eta) : null,
        ),
      )
      .then((state) => {
        if (state === "cancelled") abort(new StageError("cancelled", "the run was cancelled"));
      })
      .catch(() => {});
    return writing;
  };
  return {
    report: (pct, note, eta) => {
      pending = { pct, note, eta };
      if (Date.now() - lastWrite > PROGRESS_INTERVAL_MS) void write();
    },
    flush: () => write(),
  };
}

/** Before this much of a step has run, or this long, its pace says too little to estimate from. */
const RATE_MIN_PCT = 2;
const RATE_MIN_MS = 1500;

/**
 * Seconds left of a step `pct` done after `elapsedMs`, at the pace it has kept (a render's
 * frames, a transcription's chunks move at a steady rate); null while too little has run to say.
 */
export function rateEta(elapsedMs: number, pct: number): number | null {
  if (pct < RATE_MIN_PCT || elapsedMs < RATE_MIN_MS || pct >= 100) return null;
  return Math.round(((elapsedMs / 1000) * (100 - pct)) / pct);
}

/**
 * Whole seconds until `etaAt` (a run's `eta_at`), or null without an estimate or once the run is
 * not running: what the CLI, the API and the watch folder show as `eta_seconds`.
 */
export function etaSeconds(run: { state?: string; eta_at?: string | Date | null }, now = Date.now()): number | null {
  if (!run.eta_at || (run.state !== undefined && run.state !== "running")) return null;
  const t = new Date(run.eta_at).getTime();
  return Number.isFinite(t) ? Math.max(0, Math.round((t - now) / 1000)) : null;
}
