import { Type } from "@sinclair/typebox";
import { ApiError } from "../errors.js";
import { anyObject, defineOperation, uuidParam } from "../registry.js";
import type { Run } from "../../daemon/engine/runner.js";
import { etaSeconds } from "../../daemon/engine/progress.js";

function toRunView(run: Run) {
  return {
    run_id: run.id,
    pipeline: run.pipeline,
    state: run.state,
    phase: run.phase,
    stage: run.current_stage,
    step: run.current_step,
    step_count: run.step_count,
    progress: run.progress,
    progress_note: run.progress_note,
    eta_seconds: etaSeconds(run),
    steps: run.steps,
    output: run.state === "succeeded" ? run.output : undefined,
    error: run.error,
    origin: run.origin,
    created_at: run.created_at,
    started_at: run.started_at,
    finished_at: run.finished_at,
  };
}

export const getRun = defineOperation({
  id: "getRun",
  method: "GET",
  path: "/api/v1/runs/{id}",
  summary: "Shows a pipeline run: state, current step, progress and per-step results (ops)",
  scope: null,
  auth: "ops",
  internal: true,
  tags: ["ops"],
  params: { id: uuidParam },
  responses: { 200: { description: "The run" }, 404: { description: "No such run" } },
  async handler({ params, services }) {
    const run = await services.runner.getRun(params.id);
    if (!run) throw new ApiError(404, "not_found", `run ${params.id} does not exist`, { field: "id" });
    return toRunView(run);
  },
});

export const startRun = defineOperation({
  id: "startRun",
  method: "POST",
  path: "/api/v1/runs",
  summary: "Starts a pipeline run (ops)",
  scope: null,
  auth: "ops",
  internal: true,
  tags: ["ops"],
  body: Type.Object(
    {
      pipeline: Type.String({ minLength: 1, maxLength: 100 }),
      input: Type.Optional(anyObject()),
      set: Type.Optional(anyObject()),
    },
    { additionalProperties: false },
  ),
  responses: { 202: { description: "Queued" }, 400: { description: "Unknown pipeline or bad option" } },
  async handler(ctx) {
    const { body, services } = ctx;
    const run = await services.runner.startRun(
      body.pipeline,
      { ...(body.input ?? {}), options: body.set ?? {} },
      { origin: "ops", set: body.set },
    );
    ctx.status = 202;
    return toRunView(run);
  },
});
