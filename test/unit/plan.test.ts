// Planning is pure: a run's plan from a pipeline and option overrides, with no database or queue.
import { describe, expect, it } from "vitest";
import { planFor, takesOption, type PlanSource } from "../../daemon/engine/plan.js";
import type { Pipeline, PipelineStep } from "../../daemon/engine/pipelines.js";
import { RunError } from "../../daemon/engine/run.js";
import { defineStage } from "../../daemon/engine/stage.js";

const stage = (name: string, properties: Record<string, unknown>) =>
  defineStage({
    name,
    summary: name,
    options: { type: "object", additionalProperties: false, properties },
    run: async () => ({}),
  });

const stages = new Map([
  ["probe", stage("probe", { max_seconds: { type: "number", default: 60 } })],
  [
    "cut",
    stage("cut", { max_seconds: { type: "number", default: 30 }, format: { enum: ["mp4", "webm"], default: "mp4" } }),
  ],
  ["notify", stage("notify", { event: { type: "string", default: "done" } })],
]);

const step = (name: string, options: Record<string, unknown> = {}): PipelineStep => ({
  stage: name,
  with: options,
  retry: { limit: 0, backoff: false, delay: 0 },
  timeout: 60,
});

const pipeline: Pipeline = {
  name: "clip",
  file: "clip.yaml",
  steps: [step("probe"), step("cut", { format: "webm" })],
  on_failure: [step("notify", { event: "failed" })],
};

const src: PlanSource = { pipelines: new Map([["clip", pipeline]]), stages };

function refusal(fn: () => unknown): RunError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RunError);
    return err as RunError;
  }
  throw new Error("expected a RunError");
}

describe("planFor", () => {
  it("fills every option with its default and keeps what the YAML says", () => {
    const plan = planFor(src, "clip");
    expect(plan.steps.map((s) => s.with)).toEqual([{ max_seconds: 60 }, { max_seconds: 30, format: "webm" }]);
    expect(plan.on_failure[0]!.with).toEqual({ event: "failed" });
    expect(plan.steps[1]!.retry).toEqual(pipeline.steps[1]!.retry);
  });

  it("applies a plain key to every stage that has the option, and a scoped key to one stage", () => {
    expect(planFor(src, "clip", { max_seconds: 10 }).steps.map((s) => s.with.max_seconds)).toEqual([10, 10]);
    expect(planFor(src, "clip", { "cut.max_seconds": 10 }).steps.map((s) => s.with.max_seconds)).toEqual([60, 10]);
    expect(planFor(src, "clip", { event: "oops" }).on_failure[0]!.with.event).toBe("oops");
  });

  it("leaves the loaded pipeline as written (a plan is a copy)", () => {
    planFor(src, "clip", { format: "mp4", max_seconds: 5 });
    expect(pipeline.steps[0]!.with).toEqual({});
    expect(pipeline.steps[1]!.with).toEqual({ format: "webm" });
  });

  it("refuses an unknown pipeline, naming the known ones", () => {
    const e = refusal(() => planFor(src, "nope"));
    expect(e.code).toBe("unknown_pipeline");
    expect(e.message).toMatch(/known: clip/);
  });

  it("refuses a key no step takes, and a value the stage's schema refuses", () => {
    const unused = refusal(() => planFor(src, "clip", { colour: "red", "probe.format": "mp4" }));
    expect(unused.code).toBe("invalid_option");
    expect(unused.message).toMatch(/takes option\(s\) colour, probe\.format/);
    const bad = refusal(() => planFor(src, "clip", { format: "avi" }));
    expect(bad.code).toBe("invalid_option");
    expect(bad.message).toMatch(/option "format" for stage cut/);
  });

  it("refuses a pipeline whose stage is not installed", () => {
    const broken: PlanSource = {
      pipelines: new Map([["x", { ...pipeline, name: "x", steps: [step("transmogrify")] }]]),
      stages,
    };
    expect(refusal(() => planFor(broken, "x")).code).toBe("unknown_stage");
  });
});

describe("takesOption", () => {
  it("answers for plain and scoped keys, on_failure steps included", () => {
    expect(takesOption(src, "clip", "max_seconds")).toBe(true);
    expect(takesOption(src, "clip", "cut.format")).toBe(true);
    expect(takesOption(src, "clip", "probe.format")).toBe(false);
    expect(takesOption(src, "clip", "event")).toBe(true);
    expect(takesOption(src, "clip", "colour")).toBe(false);
    expect(takesOption(src, "nope", "max_seconds")).toBe(false);
  });
});
