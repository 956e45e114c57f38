/**
 * Planning: turns a pipeline and the caller's option overrides into a run's plan. Pure (no
 * database, no queue, no clock), so it is tested on its own (test/unit/plan.test.ts).
 *
 * The plan is built once, when the run starts, and stored on the run: that is what keeps an ops
 * edit to a YAML file from changing a run in flight. Every step's options are revalidated against
 * the stage's schema with `useDefaults`, so a plan carries every option filled and a bad override
 * is refused before anything is written.
 */
import { Ajv } from "ajv";
import type { Pipeline, PipelineStep } from "./pipelines.js";
import { RunError, type RunPlan } from "./run.js";
import type { StageDefinition } from "./stage.js";

/** What planning reads: the loaded pipelines and the installed stages. */
export interface PlanSource {
  pipelines: ReadonlyMap<string, Pipeline>;
  stages: ReadonlyMap<string, StageDefinition>;
}

const ajv = new Ajv({ strict: false, allErrors: true, useDefaults: true });

/**
 * The plan for a run of `pipelineName`: its steps with `set` applied and revalidated.
 * A `set` key "name" applies to every step whose stage has that option; "stage.name" to one stage.
 * A key no step takes is refused, so a typo is not silently ignored.
 */
export function planFor(src: PlanSource, pipelineName: string, set: Record<string, unknown> = {}): RunPlan {
  const pipeline = src.pipelines.get(pipelineName);
  if (!pipeline) {
    throw new RunError(
      "unknown_pipeline",
      `no pipeline named "${pipelineName}" (known: ${[...src.pipelines.keys()].sort().join(", ")})`,
      { field: "pipeline" },
    );
  }
  const used = new Set<string>();
  const apply = (steps: PipelineStep[]) =>
    steps.map((step) => {
      const stage = src.stages.get(step.stage);
      if (!stage) throw new RunError("unknown_stage", `pipeline ${pipelineName} uses unknown stage ${step.stage}`);
      // A copy: useDefaults fills the object it validates, and the loaded pipeline must stay as written.
      const options: Record<string, unknown> = structuredClone(step.with);
      for (const [key, value] of Object.entries(set)) {
        const name = optionOf(src, step, key);
        if (name !== undefined) {
          options[name] = value;
          used.add(key);
        }
      }
      const validate = ajv.compile(stage.options);
      if (!validate(options)) {
        const e = validate.errors?.[0];
        const field =
          e?.instancePath.replace(/^\//, "") ||
          (e?.params as { additionalProperty?: string } | undefined)?.additionalProperty ||
          "";
        const given = [...used].find((k) => k === field || k.endsWith(`.${field}`));
        throw new RunError(
          "invalid_option",
          `option ${field ? `"${field}" ` : ""}for stage ${step.stage}: ${e?.message}`,
          { field: given ? `set.${given}` : "set" },
        );
      }
      return { ...step, with: options };
    });
  const plan = { steps: apply(pipeline.steps), on_failure: apply(pipeline.on_failure) };
  const unused = Object.keys(set).filter((k) => !used.has(k));
  if (unused.length) {
    throw new RunError("invalid_option", `no step of pipeline ${pipelineName} takes option(s) ${unused.join(", ")}`, {
      field: `set.${unused[0]}`,
    });
  }
  return plan;
}

/** Whether some step of the pipeline takes the `set` key ("name", or "stage.name" for one stage). */
export function takesOption(src: PlanSource, pipelineName: string, key: string): boolean {
  const p = src.pipelines.get(pipelineName);
  return !!p && [...p.steps, ...p.on_failure].some((step) => optionOf(src, step, key) !== undefined);
}

/** The option of `step` that the `set` key names, if the step's stage has it. */
function optionOf(src: PlanSource, step: PipelineStep, key: string): string | undefined {
  const [scope, name] = key.includes(".") ? key.split(".", 2) : [undefined, key];
  if (scope && scope !== step.stage) return undefined;
  // biome-ignore lint/suspicious/noExplicitAny: a stage's options are a plain JSON Schema
  const props = ((src.stages.get(step.stage)?.options as any)?.properties ?? {}) as Record<string, unknown>;
  return name! in props ? name : undefined;
}
