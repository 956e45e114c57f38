// plan-crops (the scene analysis of the top clips, made while the episode is finished) against real
// ffmpeg and sharp, and cut taking such a plan instead of analysing the clip again.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import cut from "../../plugins/cut/index.js";
import planCrops from "../../plugins/cut/plan-crops.js";
import { PLAN_ANALYSIS, piecesSignature, plannedScenes } from "../../plugins/cut/planned.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

const CACHE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../.cache/fixtures");

/** 4 s of grey with a busy square on the left: attention must pull a 9:16 crop left. */
function salientLeft(): string {
  const file = path.join(CACHE, "salient-left-4s.mp4");
  if (!existsSync(file)) {
    mkdirSync(CACHE, { recursive: true });
    execFileSync("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "color=c=0x606060:s=640x360:d=4:r=10",
      "-f",
      "lavfi",
      "-i",
      "testsrc2=s=110x110:d=4:r=10",
      "-f",
      "lavfi",
      "-i",
      "sine=d=4",
      "-filter_complex",
      "[0][1]overlay=20:120[v]",
      "-map",
      "[v]",
      "-map",
      "2:a",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-shortest",
      file + ".part.mp4",
    ]);
    renameSync(file + ".part.mp4", file);
  }
  return file;
}

const media = { duration: 4, kind: "video", width: 640, height: 360, rotation: 0, has_audio: true };
const clipA = { ref: "aaaa", number: 1, start: 0, end: 3, pieces: [{ start: 0, end: 3 }] };
const clipB = { ref: "bbbb", number: 2, start: 1, end: 4, pieces: [{ start: 1, end: 4 }] };

describe("plan-crops and cut", () => {
  let file: string;
  let ctx: TestStageCtx | undefined;
  beforeAll(() => {
    file = salientLeft();
  });
  afterEach(async () => ctx?.cleanup());

  async function input(c: TestStageCtx) {
    await c.storage.putFile("runs/r/source.mp4", file);
    return { source: { key: "runs/r/source.mp4", name: "source.mp4", bytes: 1 }, media };
  }

  it("plans the top clips only, on the salient side, for the default shape and threshold", async () => {
    ctx = await makeStageCtx({ top: 1 });
    const out = await planCrops.run({ ...(await input(ctx)), clips: [clipA, clipB] }, ctx);
    const [a, b] = out.clips;
    expect(b.crop_plan).toBeUndefined();
    expect(a.crop_plan).toMatchObject({
      analysis: PLAN_ANALYSIS,
      frame: "9:16",
      threshold: 0.3,
      pieces: piecesSignature(clipA.pieces),
    });
    expect(a.crop_plan.scenes.length).toBeGreaterThan(0);
    expect(a.crop_plan.scenes[0].x).toBeLessThan(0.25);
    // A second pass finds nothing left to do.
    expect(await planCrops.run({ ...(await input(ctx)), clips: out.clips }, ctx)).toEqual({});
  });

  it("passes an audio episode through", async () => {
    ctx = await makeStageCtx({});
    const base = await input(ctx);
    expect(
      await planCrops.run(
        { ...base, media: { duration: 4, kind: "audio", rotation: 0, has_audio: true }, clips: [clipA] },
        ctx,
      ),
    ).toEqual({});
  });

  it("cut renders with a plan that fits, and analyses again when it does not", async () => {
    ctx = await makeStageCtx({ encode: false, width: 360 });
    const base = await input(ctx);
    // A planted plan (crop on the right) shows which one cut used: the analysis would say left.
    const planted = {
      analysis: PLAN_ANALYSIS,
      frame: "9:16",
      threshold: 0.3,
      pieces: piecesSignature(clipA.pieces),
      scenes: [{ start: 0, end: 3, x: 0.9, y: 0.5 }],
    };
    const used = await cut.run({ ...base, clip: { ...clipA, crop_plan: planted } }, ctx);
    expect(used.cut.render_plan.crop_plan).toEqual(planted.scenes);
    expect(ctx.progressCalls.map(([, n]) => n)).not.toContain("finding scenes");

    ctx.progressCalls.length = 0;
    const trimmed = { ...clipA, end: 2.5, pieces: [{ start: 0, end: 2.5 }], crop_plan: planted };
    const again = await cut.run({ ...base, clip: trimmed }, ctx);
    expect(ctx.progressCalls.map(([, n]) => n)).toContain("finding scenes");
    expect(again.cut.render_plan.crop_plan[0].x).toBeLessThan(0.25);
  });

  it("takes a plan only for its own pieces, threshold and shape, and only when well formed", () => {
    const pieces = [{ start: 0, end: 3 }];
    const good = {
      analysis: PLAN_ANALYSIS,
      frame: "9:16",
      threshold: 0.3,
      pieces: piecesSignature(pieces),
      scenes: [{ start: 0, end: 3, x: 0.2, y: 0.5 }],
    };
    expect(plannedScenes(good, { frame: "9:16", threshold: 0.3, pieces })).toEqual(good.scenes);
    expect(plannedScenes(good, { frame: "1:1", threshold: 0.3, pieces })).toBeUndefined();
    expect(plannedScenes(good, { frame: "9:16", threshold: 0.4, pieces })).toBeUndefined();
    expect(plannedScenes(good, { frame: "9:16", threshold: 0.3, pieces: [{ start: 0, end: 2 }] })).toBeUndefined();
    expect(
      plannedScenes(
        { ...good, scenes: [{ start: 0, end: 3, x: 2, y: 0.5 }] },
        { frame: "9:16", threshold: 0.3, pieces },
      ),
    ).toBeUndefined();
    // A plan of the older analysis (short edge scenes folded into their neighbour) is made again.
    expect(plannedScenes({ ...good, analysis: undefined }, { frame: "9:16", threshold: 0.3, pieces })).toBeUndefined();
    expect(plannedScenes("nonsense", { frame: "9:16", threshold: 0.3, pieces })).toBeUndefined();
  });
});
