/**
 * The runner: executes pipeline runs one step at a time on the queue.
 *
 * Guarantees:
 * - A run's plan (its steps with their options) is fixed and validated when the run starts, so an
 *   ops edit to a YAML file never changes a run in flight.
 * - Each step is one queue job. A step's result, the run's next position and the job for the next
 *   step are written in one transaction: either all happen or none.
 * - A job that does not match the run's current position is a stale duplicate and does nothing, so
 *   completed steps are never repeated, after a crash or otherwise.
 * - A `StageError` with `retryable: false` fails the run at once; other errors are retried with the
 *   step's policy, then fail the run. A failed main phase runs the pipeline's `on_failure` steps.
 * - Events a stage returns (`_events`) are written in the same transaction as its step result.
 */
import { randomUUID } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { Ajv } from "ajv";
import type { Job } from "pg-boss";
import type { Logger } from "pino";
import type { Config } from "../../config/loader.js";
import { recordEvent } from "./events.js";
import { fromSpawnError } from "../kit/os-packages.js";
import type { Pipeline, PipelineStep } from "./pipelines.js";
import type { StepJob, QueueManager } from "./queue.js";
import type { StageRegistry } from "./registry.js";
import { isStageError, StageError, type StageContext, type StageOutput } from "./stage.js";
import type { Storage } from "../kit/storage.js";
import type { Db, Queryable } from "../store/db.js";
import { compileWhen } from "./when.js";
import { isoColumn, jsonColumn } from "../store/_columns.js";

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
}

export interface Run {
  id: string;
  pipeline: string;
  input: Record<string, any>;
  state: RunState;
  phase: Phase;
  current_step: number;
  current_stage: string | null;
  step_count: number;
  progress: number;
  progress_note: string | null;
  plan: { steps: PipelineStep[]; on_failure: PipelineStep[] };
  steps: StepRecord[];
  output: Record<string, any>;
  error: { code: string; message: string; stage?: string; step?: number } | null;
  origin: string;
  origin_ref: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export class RunError extends Error {
  constructor(readonly code: string, message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = "RunError";
  }
}

export const TERMINAL: ReadonlySet<RunState> = new Set(["succeeded", "failed", "cancelled"]);

export interface RunnerDeps {
  db: Db;
  queue: QueueManager;
  registry: StageRegistry;
  pipelines: Map<string, Pipeline>;
  storage: Storage;
  log: Logger;
  config: Config;
}

export interface StartRunOptions {
  origin?: string;
  originRef?: string;
  /** Option overrides: "key" applies to every step whose stage has that option; "stage.key" to one stage. */
  set?: Record<string, unknown>;
  tx?: Queryable;
}

const ajv = new Ajv({ strict: false, allErrors: true, useDefaults: true });

/**
 * Called inside the transaction that ends a run (succeeded, or failed after its on_failure steps),
 * so domain state that follows from the run (an episode's status, a charge, the next run) commits
 * together with it or not at all.
 */
export type RunFinisher = (tx: Queryable, run: Run, runner: Runner) => Promise<void>;

export class Runner {
  private readonly shutdown = new AbortController();
  private readonly finishers: RunFinisher[] = [];

  /** Registers a hook that runs in the transaction that ends every run. */
  onRunEnd(fn: RunFinisher): void {
    this.finishers.push(fn);
  }

  private async runFinishers(tx: Queryable, runId: string) {
    if (!this.finishers.length) return;
    const run = await this.getRun(runId, tx);
    if (run) for (const fn of this.finishers) await fn(tx, run, this);
  }
  constructor(private readonly deps: RunnerDeps) {}

  get pipelines() {
    return this.deps.pipelines;
  }

  /** For services that enqueue in a run's transaction (events.ts recordEvent). */
  get queue(): QueueManager {
    return this.deps.queue;
  }

  /** Builds the run's plan: the pipeline's steps with `set` overrides applied and re-validated. */
  planFor(pipelineName: string, set: Record<string, unknown> = {}): Run["plan"] {
    const pipeline = this.deps.pipelines.get(pipelineName);
    if (!pipeline) {
      throw new RunError("unknown_pipeline", `no pipeline named "${pipelineName}" (known: ${[...this.deps.pipelines.keys()].sort().join(", ")})`);
    }
    const used = new Set<string>();
    const apply = (steps: PipelineStep[]) =>
      steps.map((step) => {
        const stage = this.deps.registry.stages.get(step.stage);
        if (!stage) throw new RunError("unknown_stage", `pipeline ${pipelineName} uses unknown stage ${step.stage}`);
        const options: Record<string, unknown> = structuredClone(step.with);
        for (const [key, value] of Object.entries(set)) {
          const name = this.optionOf(step, key);
          if (name !== undefined) {
            options[name] = value;
            used.add(key);
          }
        }
        const validate = ajv.compile(stage.options);
        if (!validate(options)) {
          const e = validate.errors?.[0];
          const field = e?.instancePath.replace(/^\//, "") || (e?.params as any)?.additionalProperty || "";
          throw new RunError("invalid_option", `option ${field ? `"${field}" ` : ""}for stage ${step.stage}: ${e?.message}`);
        }
        return { ...step, with: options };
      });
    const plan = { steps: apply(pipeline.steps), on_failure: apply(pipeline.on_failure) };
    const unused = Object.keys(set).filter((k) => !used.has(k));
    if (unused.length) {
      throw new RunError("invalid_option", `no step of pipeline ${pipelineName} takes option(s) ${unused.join(", ")}`);
    }
    return plan;
  }

  /** Whether some step of the pipeline takes the `set` key ("name", or "stage.name" for one stage). */
  takesOption(pipelineName: string, key: string): boolean {
    const p = this.deps.pipelines.get(pipelineName);
    return !!p && [...p.steps, ...p.on_failure].some((step) => this.optionOf(step, key) !== undefined);
  }

  /** The option of `step` that the `set` key names, if the step's stage has it. */
  private optionOf(step: PipelineStep, key: string): string | undefined {
    const [scope, name] = key.includes(".") ? key.split(".", 2) : [undefined, key];
    if (scope && scope !== step.stage) return undefined;
    const props = ((this.deps.registry.stages.get(step.stage)?.options as any)?.properties ?? {}) as Record<string, unknown>;
    return name! in props ? name : undefined;
  }

  async startRun(pipelineName: string, input: Record<string, any>, opts: StartRunOptions = {}): Promise<Run> {
    const plan = this.planFor(pipelineName, opts.set);
    const id = randomUUID();
    const insert = async (tx: Queryable) => {
      await tx.query(
        `insert into runs (id, pipeline, input, output, plan, step_count, origin, origin_ref, current_stage)
         values ($1, $2, $3, $3, $4, $5, $6, $7, $8)`,
        [id, pipelineName, JSON.stringify(input), JSON.stringify(plan), plan.steps.length, opts.origin ?? "api", opts.originRef ?? null, plan.steps[0]!.stage],
      );
      await this.enqueue(tx, { runId: id, phase: "main", index: 0 }, plan.steps[0]!);
    };
    if (opts.tx) await insert(opts.tx);
    else await this.deps.db.transaction(insert);
    this.deps.log.info({ runId: id, pipeline: pipelineName, origin: opts.origin ?? "api" }, "run queued");
    return (await this.getRun(id, opts.tx))!;
  }

  async getRun(id: string, q: Queryable = this.deps.db): Promise<Run | undefined> {
    const { rows } = await q.query<Run>(`select * from runs where id = $1`, [id]);
    return rows[0] ? normalise(rows[0]) : undefined;
  }

  async cancelRun(id: string): Promise<Run | undefined> {
    await this.deps.db.transaction(async (tx) => {
      const r = await tx.query(
        `update runs set state = 'cancelled', finished_at = now(), updated_at = now() where id = $1 and state in ('queued', 'running') returning id`,
        [id],
      );
      if (r.rows.length) await this.runFinishers(tx, id);
    });
    return this.getRun(id);
  }

  /** Polls until the run ends. `onUpdate` sees every change of step or progress. */
  async waitForRun(id: string, opts: { timeoutMs?: number; intervalMs?: number; onUpdate?: (run: Run) => void; signal?: AbortSignal } = {}): Promise<Run> {
    const deadline = Date.now() + (opts.timeoutMs ?? 24 * 3600_000);
    let last = "";
    for (;;) {
      const run = await this.getRun(id);
      if (!run) throw new RunError("not_found", `run ${id} does not exist`);
      const sig = `${run.state}:${run.phase}:${run.current_step}:${run.progress}:${run.progress_note}`;
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

  /** Aborts running stages (after the grace period of a shutdown). */
  abortAll(reason = "daemon shutting down"): void {
    this.shutdown.abort(new Error(reason));
  }

  private async enqueue(tx: Queryable, job: StepJob, step: PipelineStep) {
    await this.deps.queue.sendStep(job, {
      retryLimit: step.retry.limit,
      retryDelay: step.retry.delay,
      retryBackoff: step.retry.backoff,
      timeoutSeconds: step.timeout,
      tx,
    });
  }

  /** The queue handler for one step job. */
  async handle(job: Job<StepJob>): Promise<void> {
    const { runId, phase, index } = job.data;
    const run = await this.getRun(runId);
    if (!run || TERMINAL.has(run.state) || run.phase !== phase || run.current_step !== index) return; // stale
    const steps = phase === "main" ? run.plan.steps : run.plan.on_failure;
    const step = steps[index];
    const log = this.deps.log.child({ runId, pipeline: run.pipeline, phase, step: index, stage: step?.stage });
    if (!step) return;
    const state = phase === "on_failure" ? { ...run.output, error: run.error } : run.output;
    if (step.when && !compileWhen(step.when)(state)) {
      log.info({ when: step.when }, "step skipped by its condition");
      await this.finishStep(runId, phase, index, { skipped: true });
      return;
    }
    const stage = this.deps.registry.stages.get(step.stage);
    if (!stage) {
      await this.failStep(runId, phase, index, new StageError("unknown_stage", `stage ${step.stage} is not installed on this worker`), job.retryCount + 1, log);
      return;
    }
    const attempt = job.retryCount + 1;
    await this.markRunning(runId, phase, index, step.stage, attempt);
    log.info({ attempt }, "step started");

    const ac = new AbortController();
    const onAbort = (reason: unknown) => {
      if (!ac.signal.aborted) ac.abort(reason);
    };
    const timer = setTimeout(() => onAbort(new StageError("timeout", `step ${step.stage} ran past its timeout of ${step.timeout}s`, { retryable: true })), step.timeout * 1000);
    // A cancelled run stops its running step within a second, even if the stage never reports progress.
    const watchCancel = setInterval(() => {
      void this.deps.db
        .query<{ state: string }>(`select state from runs where id = $1`, [runId])
        .then((r) => r.rows[0]?.state === "cancelled" && onAbort(new StageError("cancelled", "the run was cancelled")))
        .catch(() => {});
    }, 1000);
    const fromJob = () => onAbort(new Error("the queue took the job back (expired or cancelled)"));
    const fromShutdown = () => onAbort(this.shutdown.signal.reason);
    job.signal?.addEventListener("abort", fromJob, { once: true });
    this.shutdown.signal.addEventListener("abort", fromShutdown, { once: true });
    const workdir = path.join(this.deps.config.data_dir, "work", runId, `${phase}-${index}-${attempt}`);
    await mkdir(workdir, { recursive: true });
    const progress = this.progressWriter(runId, run.step_count, phase === "main" ? index : run.step_count, onAbort);
    const ctx: StageContext = {
      signal: ac.signal,
      log,
      progress: progress.report,
      workdir,
      storage: this.deps.storage,
      runId,
      stepId: `${phase}:${index}`,
      pipeline: run.pipeline,
      options: step.with,
      config: this.deps.config,
    };
    let output: StageOutput;
    try {
      output = await raceAbort(stage.run(state, ctx), ac.signal);
      if (!output || typeof output !== "object" || Array.isArray(output)) {
        throw new StageError("bad_output", `stage ${step.stage} returned ${Array.isArray(output) ? "an array" : typeof output}, not an object`);
      }
    } catch (caught) {
      const err = fromSpawnError(caught); // a plugin's own spawn of a program that is not installed
      const final = (isStageError(err) && !err.retryable) || job.retryCount >= step.retry.limit;
      log[final ? "error" : "warn"]({ err: errInfo(err), attempt, final }, final ? "step failed" : "step failed, will retry");
      if (final) {
        await this.failStep(runId, phase, index, err, attempt, log);
        return;
      }
      await this.recordRetry(runId, phase, index, err, attempt);
      throw err; // the queue retries with the step's policy
    } finally {
      clearTimeout(timer);
      clearInterval(watchCancel);
      job.signal?.removeEventListener("abort", fromJob);
      this.shutdown.signal.removeEventListener("abort", fromShutdown);
      await progress.flush();
      await rm(workdir, { recursive: true, force: true }).catch(() => {});
    }
    await this.finishStep(runId, phase, index, { output });
    log.info("step finished");
  }

  private progressWriter(runId: string, stepCount: number, index: number, abort: (reason: unknown) => void) {
    let pending: { pct: number; note?: string } | undefined;
    let lastWrite = 0;
    let writing: Promise<void> = Promise.resolve();
    const write = () => {
      if (!pending) return writing;
      const { pct, note } = pending;
      pending = undefined;
      lastWrite = Date.now();
      const overall = Math.min(99.9, ((Math.min(index, stepCount) + Math.max(0, Math.min(100, pct)) / 100) / Math.max(1, stepCount)) * 100);
      writing = writing
        .then(() =>
          this.deps.db.query<{ state: string }>(
            `update runs set progress = $2, progress_note = $3, updated_at = now() where id = $1 returning state`,
            [runId, Math.round(overall * 10) / 10, note ?? null],
          ),
        )
        .then((r) => {
          if (r.rows[0]?.state === "cancelled") abort(new StageError("cancelled", "the run was cancelled"));
        })
        .catch(() => {});
      return writing;
    };
    return {
      report: (pct: number, note?: string) => {
        pending = { pct, note };
        if (Date.now() - lastWrite > 500) void write();
      },
      flush: () => write(),
    };
  }

  private async locked<T>(runId: string, fn: (tx: Queryable, run: Run) => Promise<T>): Promise<T | undefined> {
    return this.deps.db.transaction(async (tx) => {
      const { rows } = await tx.query<Run>(`select * from runs where id = $1 for update`, [runId]);
      if (!rows[0]) return undefined;
      return fn(tx, normalise(rows[0]));
    });
  }

  private async markRunning(runId: string, phase: Phase, index: number, stage: string, attempt: number) {
    await this.locked(runId, async (tx, run) => {
      const steps = upsertStep(run.steps, { phase, index, stage, state: "running", attempts: attempt, started_at: new Date().toISOString() });
      await tx.query(
        `update runs set state = case when state = 'queued' then 'running' else state end, current_stage = $2, steps = $3,
           started_at = coalesce(started_at, now()), updated_at = now() where id = $1`,
        [runId, stage, JSON.stringify(steps)],
      );
    });
  }

  private async recordRetry(runId: string, phase: Phase, index: number, err: unknown, attempt: number) {
    await this.locked(runId, async (tx, run) => {
      const rec = run.steps.find((s) => s.phase === phase && s.index === index);
      if (!rec) return;
      rec.state = "retrying";
      rec.errors = [...(rec.errors ?? []), { attempt, ...codeOf(err), at: new Date().toISOString() }];
      await tx.query(`update runs set steps = $2, updated_at = now() where id = $1`, [runId, JSON.stringify(run.steps)]);
    });
  }

  private async finishStep(runId: string, phase: Phase, index: number, result: { output?: StageOutput; skipped?: boolean }) {
    await this.locked(runId, async (tx, run) => {
      if (TERMINAL.has(run.state) || run.phase !== phase || run.current_step !== index) return;
      const { _events, ...output } = (result.output ?? {}) as StageOutput;
      const steps = upsertStep(run.steps, {
        phase,
        index,
        stage: (phase === "main" ? run.plan.steps : run.plan.on_failure)[index]!.stage,
        state: result.skipped ? "skipped" : "succeeded",
        attempts: run.steps.find((s) => s.phase === phase && s.index === index)?.attempts ?? 0,
        finished_at: new Date().toISOString(),
        output: result.skipped ? undefined : output,
      });
      const merged = { ...run.output, ...output };
      // The run's own record. For API work the account's webhook events come from the domain
      // services (events.ts), in the API's shapes; work from the watch folder or the CLI that names
      // an account (watch.account_id, --account) has only these, so they are delivered.
      const deliverable = run.origin !== "api" && Boolean(run.input.account_id);
      for (const ev of Array.isArray(_events) ? _events : []) {
        await recordEvent(
          tx,
          {
            type: String(ev.type),
            runId,
            accountId: run.input.account_id ?? null,
            livemode: deliverable ? true : Boolean(run.input.livemode),
            data: { ...((ev.data ?? {}) as Record<string, unknown>), ...(deliverable ? { origin: run.origin, origin_ref: run.origin_ref } : {}) },
            deliver: deliverable ? undefined : false,
          },
          this.deps.queue,
        );
      }
      const list = phase === "main" ? run.plan.steps : run.plan.on_failure;
      const next = index + 1;
      if (next < list.length) {
        const progress = phase === "main" ? Math.round((next / run.step_count) * 1000) / 10 : run.progress;
        await tx.query(
          `update runs set current_step = $2, current_stage = $3, steps = $4, output = $5, progress = $6, progress_note = null, updated_at = now() where id = $1`,
          [runId, next, list[next]!.stage, JSON.stringify(steps), JSON.stringify(merged), progress],
        );
        await this.enqueue(tx, { runId, phase, index: next }, list[next]!);
      } else {
        const state = phase === "main" ? "succeeded" : "failed";
        await tx.query(
          `update runs set state = $2, current_step = $3, current_stage = null, steps = $4, output = $5,
             progress = case when $2 = 'succeeded' then 100 else progress end, progress_note = null, finished_at = now(), updated_at = now() where id = $1`,
          [runId, state, next, JSON.stringify(steps), JSON.stringify(merged)],
        );
        await this.runFinishers(tx, runId);
      }
    });
  }

  private async failStep(runId: string, phase: Phase, index: number, err: unknown, attempt: number, log: Logger) {
    await this.locked(runId, async (tx, run) => {
      if (TERMINAL.has(run.state) || run.phase !== phase || run.current_step !== index) return;
      const list = phase === "main" ? run.plan.steps : run.plan.on_failure;
      const info = codeOf(err);
      const prev = run.steps.find((s) => s.phase === phase && s.index === index);
      const steps = upsertStep(run.steps, {
        phase,
        index,
        stage: list[index]!.stage,
        state: "failed",
        attempts: attempt,
        finished_at: new Date().toISOString(),
        errors: [...(prev?.errors ?? []), { attempt, ...info, at: new Date().toISOString() }],
      });
      const details = isStageError(err) && err.details ? err.details : {};
      const error = phase === "main" ? { ...details, ...info, stage: list[index]!.stage, step: index } : run.error;
      if (phase === "main" && run.plan.on_failure.length) {
        await tx.query(
          `update runs set phase = 'on_failure', current_step = 0, current_stage = $2, steps = $3, error = $4, updated_at = now() where id = $1`,
          [runId, run.plan.on_failure[0]!.stage, JSON.stringify(steps), JSON.stringify(error)],
        );
        await this.enqueue(tx, { runId, phase: "on_failure", index: 0 }, run.plan.on_failure[0]!);
        log.info("running on_failure steps");
      } else {
        await tx.query(
          `update runs set state = 'failed', current_stage = null, steps = $2, error = $3, finished_at = now(), updated_at = now() where id = $1`,
          [runId, JSON.stringify(steps), JSON.stringify(error)],
        );
        await this.runFinishers(tx, runId);
      }
    });
  }
}

function upsertStep(steps: StepRecord[], rec: StepRecord): StepRecord[] {
  const i = steps.findIndex((s) => s.phase === rec.phase && s.index === rec.index);
  if (i < 0) return [...steps, rec];
  const out = [...steps];
  out[i] = { ...steps[i], ...Object.fromEntries(Object.entries(rec).filter(([, v]) => v !== undefined)) } as StepRecord;
  return out;
}

function codeOf(err: unknown): { code: string; message: string } {
  if (isStageError(err)) return { code: err.code, message: err.message };
  const e = err as Error | undefined;
  return { code: "stage_crashed", message: e?.message ?? String(err) };
}

function errInfo(err: unknown) {
  const e = err as Error & { code?: string };
  return { message: e?.message ?? String(err), code: e?.code, stack: isStageError(e) ? undefined : e?.stack };
}

function normalise(row: any): Run {
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
  };
}

/** Resolves with the stage's promise, or rejects as soon as the signal aborts (a stage that ignores its signal cannot hold the worker). */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
