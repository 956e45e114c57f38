/**
 * The one signal a running stage gets, and the four things that may fire it: the step's timeout,
 * a cancel of the run (checked once a second, so a stage that never reports progress still stops),
 * the queue taking the job back, and the daemon shutting down. The first reason wins; later ones
 * are ignored, so the error the step records is the cause, not an echo of it.
 */
import type { Db } from "../store/db.js";
import { readRunState } from "./run-store.js";
import { StageError } from "./stage.js";

export interface StepAbort {
  signal: AbortSignal;
  /** Aborts with `reason` unless already aborted (the progress writer uses it on a cancel). */
  abort(reason: unknown): void;
  /** Stops the timer and the cancel watch and lets go of the outer signals. Call once the stage settles. */
  dispose(): void;
}

export interface StepAbortSources {
  db: Db;
  runId: string;
  stage: string;
  timeoutSeconds: number;
  /** The queue's signal for the job (expired or cancelled by pg-boss). */
  job?: AbortSignal;
  shutdown: AbortSignal;
}

export function stepAbort(src: StepAbortSources): StepAbort {
  const ac = new AbortController();
  const abort = (reason: unknown) => {
    if (!ac.signal.aborted) ac.abort(reason);
  };
  const timer = setTimeout(
    () =>
      abort(
        new StageError("timeout", `step ${src.stage} ran past its timeout of ${src.timeoutSeconds}s`, {
          retryable: true,
        }),
      ),
    src.timeoutSeconds * 1000,
  );
  const watchCancel = setInterval(() => {
    void readRunState(src.db, src.runId)
      .then((state) => state === "cancelled" && abort(new StageError("cancelled", "the run was cancelled")))
      .catch(() => {});
  }, 1000);
  const fromJob = () => abort(new Error("the queue took the job back (expired or cancelled)"));
  const fromShutdown = () => abort(src.shutdown.reason);
  src.job?.addEventListener("abort", fromJob, { once: true });
  src.shutdown.addEventListener("abort", fromShutdown, { once: true });
  return {
    signal: ac.signal,
    abort,
    dispose() {
      clearTimeout(timer);
      clearInterval(watchCancel);
      src.job?.removeEventListener("abort", fromJob);
      src.shutdown.removeEventListener("abort", fromShutdown);
    },
  };
}

/**
 * Resolves with the stage's promise, or rejects as soon as the signal aborts (a stage that ignores its signal cannot
 * hold the worker).
 */
export function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
