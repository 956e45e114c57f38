// The clip shapes as each surface sees them: the sizes, the cut stage's option (what --set and a
// watch-folder sidecar reach, planned against the real pipelines and stage), the account API's
// body schema, and the look that a restyle resolves and spells out to the run.
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { frameSize } from "../../daemon/render/aspect.js";
import { cutChanged, lookChanges, resolveLook, ClipLooks } from "../../daemon/account/clip-look.js";
import { planFor } from "../../daemon/engine/plan.js";
import { RunError } from "../../daemon/engine/run.js";
import cut from "../../plugins/cut/index.js";
import { R } from "../../facade/operations/_account-requests.js";

describe("shapes", () => {
  it("sizes each shape from its short side", () => {
    expect(frameSize("9:16", 1080)).toEqual({ width: 1080, height: 1920 });
    expect(frameSize("1:1", 1080)).toEqual({ width: 1080, height: 1080 });
    expect(frameSize("4:5", 1080)).toEqual({ width: 1080, height: 1350 });
    expect(frameSize("16:9", 1080)).toEqual({ width: 1920, height: 1080 });
    expect(frameSize("16:9", 720)).toEqual({ width: 1280, height: 720 });
    expect(frameSize("4:5", 362)).toEqual({ width: 362, height: 452 }); // sides stay even
  });

  it("reaches cut through a run's options (--set, sidecars) and refuses an unknown shape by name", () => {
    // The clip pipeline's cut step as pipelines/clip.yaml writes it, with the real stage's schema.
    const step = { stage: "cut", with: { encode: false }, retry: { limit: 0, backoff: false, delay: 0 }, timeout: 60 };
    const withCut = {
      pipelines: new Map([["clip", { name: "clip", file: "clip.yaml", steps: [step], on_failure: [] }]]),
      stages: new Map([[cut.name, cut]]),
    };
    const plan = planFor(withCut, "clip", { aspect_ratio: "1:1" });
    expect(plan.steps[0]!.with).toMatchObject({ aspect_ratio: "1:1", width: 1080 });
    expect(planFor(withCut, "clip").steps[0]!.with).toMatchObject({ aspect_ratio: "9:16" });
    let err: unknown;
    try {
      planFor(withCut, "clip", { aspect_ratio: "2:1" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RunError);
    expect((err as RunError).field).toBe("set.aspect_ratio");
  });

  it("is an export and restyle field of the account API; background takes #RRGGBB", () => {
    const check = new Ajv({ strict: false }).compile(R.restyleBody);
    expect(check({ aspect_ratio: "4:5" })).toBe(true);
    expect(check({ aspect_ratio: "2:1" })).toBe(false);
    expect(check({ background: "#12abEF" })).toBe(true);
    expect(check({ background: "#12ab" })).toBe(false);
    expect(check({ background: "teal" })).toBe(false);
  });

  it("resolves as a look field that cuts the clip again, and spells it out to the cut only", () => {
    const looks = new ClipLooks();
    const base = looks.serviceLook();
    expect(base.aspect_ratio).toBe("9:16");
    const square = resolveLook(base, { aspect_ratio: "1:1" });
    const changes = lookChanges(base, square);
    expect(changes).toEqual([{ field: "aspect_ratio", from: "9:16", to: "1:1" }]);
    expect(cutChanged(changes)).toBe(true);
    expect(looks.runOptions(square, "cut")).toMatchObject({ aspect_ratio: "1:1" });
    expect(looks.runOptions(square, "render")).not.toHaveProperty("aspect_ratio");
  });
});
