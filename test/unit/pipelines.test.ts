import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadPipelines, pipelineDirs } from "../../daemon/engine/pipelines.js";
import { loadStages as loadStageRegistry } from "../../daemon/boot/stages.js";
import { compileWhen } from "../../daemon/engine/when.js";
import { toSeconds } from "../../daemon/engine/duration.js";
import { repoRoot } from "../helpers/cli.js";

const defaults = { retry: { limit: 2, backoff: true, delay: 5 }, timeout: "1h" };

describe("pipelines", () => {
  it("loads the shipped pipelines with no problem", async () => {
    const { stages } = await loadStageRegistry();
    const { pipelines, issues } = loadPipelines({ dirs: pipelineDirs(repoRoot), stages, defaults });
    expect(issues).toEqual([]);
    for (const name of ["probe", "transcript"]) expect(pipelines.has(name)).toBe(true);
  });

  it("reports every problem of a broken set at once, each with file and line", async () => {
    const { stages } = await loadStageRegistry();
    const { issues } = loadPipelines({
      dirs: [path.join(repoRoot, "test/fixtures/broken-pipelines")],
      stages,
      defaults,
      relativeTo: repoRoot,
    });
    const text = issues.map((i) => `${i.file}:${i.line}: ${i.message}`);
    expect(text).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^test\/fixtures\/broken-pipelines\/bad-stage\.yaml:5: .*unknown stage "transmogrify"/),
        expect.stringMatching(/^test\/fixtures\/broken-pipelines\/bad-stage\.yaml:8: .*option "max_seconds" must be/),
        expect.stringMatching(
          /^test\/fixtures\/broken-pipelines\/bad-stage\.yaml:9: .*unknown option "colour" for stage probe/,
        ),
        expect.stringMatching(/^test\/fixtures\/broken-pipelines\/bad-stage\.yaml:10: .*timeout.*forever/),
        expect.stringMatching(/^test\/fixtures\/broken-pipelines\/bad-stage\.yaml:11: .*retry: limit/),
        expect.stringMatching(/^test\/fixtures\/broken-pipelines\/bad-yaml\.yaml:\d+: YAML: /),
        // A step that needs run state nothing provides, and an input key that does not exist.
        expect.stringMatching(
          new RegExp(
            "^test/fixtures/broken-pipelines/missing-state\\.yaml:5: " +
              "steps\\[1\\]: caption-burn needs cut in the run state",
          ),
        ),
        expect.stringMatching(
          /^test\/fixtures\/broken-pipelines\/missing-state\.yaml:2: "input": unknown run-state key\(s\) subtitles/,
        ),
        expect.stringMatching(/^test\/fixtures\/broken-pipelines\/bad-stage\.yaml:6: steps\[2\]: probe needs source/),
      ]),
    );
  });

  it("lets an ops folder override a pipeline of the same name", async () => {
    const { stages } = await loadStageRegistry({
      plugins: [path.join(repoRoot, "test/fixtures/stages/test-stages.mjs")],
    });
    const { pipelines, issues } = loadPipelines({
      dirs: [path.join(repoRoot, "pipelines"), path.join(repoRoot, "test/fixtures/pipelines")],
      stages,
      defaults,
    });
    expect(issues).toEqual([]);
    expect(pipelines.get("t-chain")!.steps).toHaveLength(3);
    expect(pipelines.get("t-block")!.steps[1]!.retry).toEqual({ limit: 3, backoff: true, delay: 0 });
  });
});

describe("plugin modules", () => {
  it("load by path and may replace a built-in stage of the same name", async () => {
    const { stages, origins } = await loadStageRegistry({
      plugins: [path.join(repoRoot, "test/fixtures/stages/replace-notify.mjs")],
    });
    expect(origins.get("notify")).toMatch(/replace-notify\.mjs$/);
    expect(stages.get("notify")!.summary).toMatch(/replacement/);
    expect(origins.get("probe")).toBe("builtin");
  });

  it("refuses a module that exports no stage, naming it", async () => {
    await expect(
      loadStageRegistry({ plugins: [path.join(repoRoot, "test/fixtures/pipelines/t-chain.yaml")] }),
    ).rejects.toThrow(/t-chain\.yaml/);
  });
});

describe("when: and durations", () => {
  it("evaluates conditions on the run state", () => {
    expect(compileWhen('media.kind == "video"')({ media: { kind: "video" } })).toBe(true);
    expect(compileWhen("!source_url")({})).toBe(true);
    expect(compileWhen("options.render_top > 0")({ options: { render_top: 0 } })).toBe(false);
    expect(() => compileWhen("a = b")).toThrow(/cannot read condition/);
  });
  it("reads durations", () => {
    expect(toSeconds("2h")).toBe(7200);
    expect(toSeconds("500ms")).toBe(0.5);
    expect(toSeconds(30)).toBe(30);
    expect(() => toSeconds("soon")).toThrow(/not a duration/);
  });
});
