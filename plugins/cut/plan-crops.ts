/**
 * The `plan-crops` stage: the scene analysis of `cut` (plugins/cut/focus.ts), done for an episode's
 * top clips while the episode is being finished, so that rendering one of them starts encoding at
 * once. It belongs beside `cut` because it makes exactly what `cut` would make; `cut` takes a plan
 * only when it matches (plugins/cut/planned.ts) and analyses again otherwise.
 *
 * Since issue 37 the plan also holds the clip's camera (faces, speakers, layout: reframe.ts), which
 * the editor's preview reads too. It is an optimisation: a clip it cannot analyse (an undecodable
 * stretch) is left without a plan, and an audio-only episode passes through untouched.
 */
import { Type } from "@sinclair/typebox";
import { Defaulted, defineStage, resolveOptions, StringEnum, type StageOptions } from "../../daemon/engine/stage.js";
import { stepFile } from "../../daemon/storage/storage.js";
import { ASPECT_RATIOS, DEFAULT_ASPECT, frameSize } from "../../daemon/render/aspect.js";
import { selectClip } from "./clip.js";
import { planFraming } from "./framing.js";
import { CutOptionsSchema } from "./index.js";
import { PLAN_ANALYSIS, piecesSignature, plannedScenes, type PlannedCrop } from "./planned.js";

export const PlanCropsOptionsSchema = Type.Object(
  {
    top: Defaulted(
      Type.Integer({
        minimum: 0,
        maximum: 20,
        description: "How many clips (in list order, best first) get a crop plan ahead of their render; 0 plans none.",
      }),
      3,
    ),
    aspect_ratio: Defaulted(
      StringEnum([...ASPECT_RATIOS], {
        description: "The clip shape the plans are for; a render of another shape analyses again.",
      }),
      DEFAULT_ASPECT,
    ),
    layout: CutOptionsSchema.properties.layout,
    scene_threshold: Defaulted(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1,
        description:
          "ffmpeg scene score that starts a new crop scene; a render uses the plan " +
          "only if its `cut` step has the same threshold.",
      }),
      CutOptionsSchema.properties.scene_threshold.default as number,
    ),
  },
  { additionalProperties: false },
);
export type PlanCropsOptions = StageOptions<typeof PlanCropsOptionsSchema>;

export default defineStage<PlanCropsOptions>({
  name: "plan-crops",
  needs: ["source", "clips"],
  provides: ["clips"],
  summary: "Analyses the scenes of the top clips ahead of their render, so a render starts encoding at once",
  options: PlanCropsOptionsSchema,
  async run(input, ctx) {
    const o = resolveOptions(PlanCropsOptionsSchema, ctx.options);
    // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
    const clips: any[] = Array.isArray(input.clips) ? input.clips : [];
    const media = input.media ?? {};
    const isVideo = media.kind === "video" || (media.kind === undefined && media.width > 0);
    const sourceKey: string | undefined = input.source?.key;
    if (!o.top || !clips.length || !isVideo || !sourceKey || !(await ctx.storage.exists(sourceKey))) return {};
    // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
    const want = (c: any) => {
      const { pieces } = selectClip({ ...input, clip: c }, {}, media.duration);
      return {
        pieces,
        has: plannedScenes(c.crop_plan, {
          frame: o.aspect_ratio,
          threshold: o.scene_threshold,
          pieces,
          layout: o.layout,
        }),
      };
    };
    const todo = clips
      .slice(0, o.top)
      .map((c, i) => ({ i, ...want(c) }))
      .filter((t) => !t.has);
    if (!todo.length) return {};
    const source = await stepFile(ctx, sourceKey);
    const { width, height } = frameSize(o.aspect_ratio, 1080);
    const out = clips.slice();
    for (const [n, t] of todo.entries()) {
      ctx.progress((n / todo.length) * 100, `planning crops ${n + 1}/${todo.length}`);
      try {
        const { scenes, camera } = await planFraming(source, t.pieces, ctx, {
          threshold: o.scene_threshold,
          aspect: width / height,
          layout: o.layout,
        });
        const plan: PlannedCrop = {
          analysis: PLAN_ANALYSIS,
          frame: o.aspect_ratio,
          threshold: o.scene_threshold,
          pieces: piecesSignature(t.pieces),
          scenes,
          layout: o.layout,
          ...(camera ? { camera } : {}),
        };
        out[t.i] = { ...out[t.i], crop_plan: plan };
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        ctx.log.warn({ err, ref: out[t.i]?.ref }, "plan-crops: no plan for this clip; its render analyses it");
      }
    }
    ctx.progress(100, "crops planned");
    return { clips: out };
  },
});
