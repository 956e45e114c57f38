/**
 * Transition: nothing → queued. The run row (pipeline, input, frozen plan) and the job for its
 * first step are written in one transaction, the caller's when it has one, so a service's own
 * row (an episode, a transcript, a watch file) commits together with its run or not at all.
 */
import type { QueueManager } from "../queue.js";
import type { RunOrigin, RunPlan } from "../run.js";
import type { Queryable } from "../../store/db.js";
import { enqueueStep } from "./context.js";

export interface NewRun {
  id: string;
  pipeline: string;
  // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
  input: Record<string, any>;
  plan: RunPlan;
  origin: RunOrigin;
  originRef: string | null;
}

export async function insertRun(queue: QueueManager, tx: Queryable, run: NewRun): Promise<void> {
  const first = run.plan.steps[0]!;
  // The input is also the starting output: each step's output is merged over it.
  await tx.query(
    `insert into runs (id, pipeline, input, output, plan, step_count, origin, origin_ref, current_stage)
     values ($1, $2, $3, $3, $4, $5, $6, $7, $8)`,
    [
      run.id,
      run.pipeline,
      JSON.stringify(run.input),
      JSON.stringify(run.plan),
      run.plan.steps.length,
      run.origin,
      run.originRef,
      first.stage,
    ],
  );
  await enqueueStep(queue, tx, { runId: run.id, phase: "main", index: 0 }, first);
}
