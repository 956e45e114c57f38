/**
 * The run record: the shape of a `runs` row as the engine and its callers see it, and the pure
 * helpers that edit its step list. Kept apart from the runner so that planning, the transition SQL
 * and the readers can share these types without importing the runner (no import cycles).
 */
import { isoColumn, jsonColumn } from "../store/_columns.js";
import type { PipelineStep } from "./pipelines.js";
import { isStageError, type StageOutput } from "./stage.js";

export type RunState = "queued" | "running" | "succeeded" | "failed" | "cancelled";
export type Phase = "main" | "on_failure";

export interface StepRecord {
  phase: Phase;
  index: number;
  stage: string;
  state: "running" | "succeeded" | "failed" | "skipped" | "retrying";
  attempts: number;
  started_at?: string;
  finished_at?: string;
  output?: StageOutput;
  errors?: Array<{ attempt: number; code: string; message: string; at: string }>;
  /**
   * Times the step's worker died under it (killed, out of memory, heartbeat lost) and the queue
   * handed the step out again. Counted apart from `errors`: a crash is not the step's fault and
   * spends no retry; it has its own limit (`queue.crash_limit`).
   */
  crashes?: number;
  /** Times a planned stop handed the step back to the queue mid-run (no error, no crash). */
  stops?: number;
}

/** A run's frozen plan: the pipeline's steps with every option filled and validated at start. */
export interface RunPlan {
  steps: PipelineStep[];
  on_failure: PipelineStep[];
}

export interface Run {
  id: string;
  pipeline: string;
  // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
  input: Record<string, any>;
  state: RunState;
  phase: Phase;
  current_step: number;
  current_stage: string | null;
  step_count: number;
  progress: number;
  progress_note: string | null;
  /** When the current step expects to be done, by its own estimate (progress.ts etaSeconds). */
  eta_at: string | null;
  plan: RunPlan;
  steps: StepRecord[];
  // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
  output: Record<string, any>;
  error: { code: string; message: string; stage?: string; step?: number } | null;
  origin: RunOrigin;
  origin_ref: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/**
 * Where a run's work came from, recorded on every run: the account surfaces (the API, the website,
 * the MCP tool server), the watch folder, the CLI, the ops routes and the free API. The engine
 * only records it; the domains read it (daemon/account/surfaces.ts).
 */
export const RUN_ORIGINS = ["api", "web", "chat", "watch", "cli", "ops", "free"] as const;
export type RunOrigin = (typeof RUN_ORIGINS)[number];

export class RunError extends Error {
  /** The input that was wrong, when one was ("pipeline", "set.<option>"). */
  readonly field?: string;
  constructor(
    readonly code: string,
    message: string,
    opts?: { cause?: unknown; field?: string },
  ) {
    super(message, opts);
    this.name = "RunError";
    this.field = opts?.field;
  }
}

export const TERMINAL: ReadonlySet<RunState> = new Set(["succeeded", "failed", "cancelled"]);

/** The step list a phase runs through. */
export function stepsOf(plan: RunPlan, phase: Phase): PipelineStep[] {
  return phase === "main" ? plan.steps : plan.on_failure;
}

/**
 * Whether a job for (phase, index) is the one the run waits for. Every transition checks this
 * under the row lock, which is what makes a stale or duplicate job a no-op.
 */
export function isCurrent(run: Run, phase: Phase, index: number): boolean {
  return !TERMINAL.has(run.state) && run.phase === phase && run.current_step === index;
}

/** The step list with `rec` merged over the record of the same step (undefined fields keep the old value). */
export function upsertStep(steps: StepRecord[], rec: StepRecord): StepRecord[] {
  const i = steps.findIndex((s) => s.phase === rec.phase && s.index === rec.index);
  if (i < 0) return [...steps, rec];
  const out = [...steps];
  out[i] = { ...steps[i], ...Object.fromEntries(Object.entries(rec).filter(([, v]) => v !== undefined)) } as StepRecord;
  return out;
}

/** The code and message a step record keeps for an error; anything not a StageError is a crash. */
export function codeOf(err: unknown): { code: string; message: string } {
  if (isStageError(err)) return { code: err.code, message: err.message };
  const e = err as Error | undefined;
  return { code: "stage_crashed", message: e?.message ?? String(err) };
}

/** A `runs` row as both drivers return it, evened out (JSON columns parsed, timestamps as ISO). */
// biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
export function normalise(row: any): Run {
  return {
    ...row,
    input: jsonColumn(row.input),
    plan: jsonColumn(row.plan),
    steps: jsonColumn(row.steps) ?? [],
    output: jsonColumn(row.output) ?? {},
    error: jsonColumn(row.error),
    progress: Number(row.progress),
    created_at: isoColumn(row.created_at),
    updated_at: isoColumn(row.updated_at),
    started_at: isoColumn(row.started_at),
    finished_at: isoColumn(row.finished_at),
    eta_at: isoColumn(row.eta_at ?? null),
  };
}
