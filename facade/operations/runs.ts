import { ApiError } from "../errors.js";
import { defineOperation, uuidParam } from "../registry.js";

export const getRun = defineOperation({
  id: "getRun",
  method: "GET",
  path: "/api/v1/runs/{id}",
  summary: "Shows a pipeline run: state, current step, progress and per-step results (ops)",
  scope: null,
  internal: true,
  tags: ["ops"],
  params: { id: uuidParam },
  responses: { 200: { description: "The run" }, 404: { description: "No such run" } },
  async handler({ params, services }) {
    const run = await services.runner.getRun(params.id!);
    if (!run) throw new ApiError(404, "not_found", `run ${params.id} does not exist`, { field: "id" });
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
      steps: run.steps,
      error: run.error,
      origin: run.origin,
      created_at: run.created_at,
      started_at: run.started_at,
      finished_at: run.finished_at,
    };
  },
});
