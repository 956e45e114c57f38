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
  const shownEta = etaSmoother();
  let writing: Promise<void> = Promise.resolve();
  const write = () => {
    if (!pending) return writing;
    const { pct, note } = pending;
    // A stage that gives no estimate of its own gets one from its pace so far (rateEta); either is
    // smoothed before it is shown (etaSmoother).
    const now = Date.now();
    const raw = pending.eta ?? rateEta(now - started, pct) ?? undefined;
    const eta = shownEta(now, now - started, raw !== undefined && Number.isFinite(raw) ? raw : undefined);
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

/** A step's estimate is shown only once it has run this long: its first moments say little of its pace. */
export const ETA_SETTLE_MS = 5_000;
/** How fast a shown estimate follows the new ones, and how far it may move: at most 2× in this long. */
const ETA_FOLLOW_MS = 10_000;

/**
 * What a step shows as its time left, from the raw estimates (the stage's own, or its pace): none
 * before ETA_SETTLE_MS, then the estimated end time follows the new estimates smoothly. Over a
 * time dt the shown time left moves a share 1 - e^(-dt/ETA_FOLLOW_MS) of the way to the new
 * estimate, and never to more than 2^(dt/ETA_FOLLOW_MS) times what it was plus dt, nor to less
 * than what it was over that factor: a raw estimate that leaps (a fast first phase, then a slow
 * one: 31 s, then 1013 s within half a minute) shows as a steady climb that a reader can follow.
 * Without a new raw estimate the shown one counts down. Returns seconds, or undefined: no estimate.
 */
export function etaSmoother(): (now: number, elapsedMs: number, raw: number | undefined) => number | undefined {
  let endAt: number | undefined;
  let at = 0;
  return (now, elapsedMs, raw) => {
    if (elapsedMs < ETA_SETTLE_MS) return undefined;
    if (raw === undefined) return endAt === undefined ? undefined : Math.max(0, (endAt - now) / 1000);
    const target = Math.max(0, raw);
    if (endAt === undefined) {
      endAt = now + target * 1000;
      at = now;
      return target;
    }
    const dt = Math.max(0, now - at);
    const was = Math.max(0, (endAt - now) / 1000);
    const follow = was + (target - was) * (1 - Math.exp(-dt / ETA_FOLLOW_MS));
    const factor = 2 ** (dt / ETA_FOLLOW_MS);
    const shown = Math.min(was * factor + dt / 1000, Math.max(was / factor, follow));
    endAt = now + shown * 1000;
    at = now;
    return shown;
  };
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
