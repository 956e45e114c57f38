// The camera operator (issue 37) on videos composed at test time from the face-api demo photos
// (test/fixtures/reframe.ts): the plan is made by reframe(), rendered by the real ffmpeg graph, and
// every check reads the rendered frames (faces found again in them, the picture's shift).
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CameraPlan } from "../../daemon/render/camera.js";
import { reframe } from "../../plugins/cut/reframe.js";
import { compose, SCENES, type SceneName } from "../fixtures/reframe.js";
import { descriptorOf, facesOf, inside, renderCamera, shifts, speakerShare } from "../helpers/reframe-checks.js";

let dir: string;
const made = new Map<SceneName, Awaited<ReturnType<typeof compose>>>();
const fixture = async (name: SceneName) => {
  if (!made.has(name)) made.set(name, await compose(dir, name, SCENES[name]));
  return made.get(name)!;
};
const share = <T>(v: T[], f: (x: T) => boolean) => v.filter(f).length / Math.max(1, v.length);
/** Jump times of a plan (scene cuts and speaker changes): the frame may move there. */
const jumps = (c: CameraPlan) =>
  c.paths
    .flat()
    .filter((k) => k.cut)
    .map((k) => k.t);

async function faceInFrame(name: SceneName, camera: CameraPlan, from = 0) {
  const s = SCENES[name];
  const video = await renderCamera((await fixture(name)).file, s.seconds, camera);
  const frames = (await facesOf(video, s.seconds)).filter((f) => f.t >= from);
  return { video, frames, share: share(frames, (f) => f.faces.some((x) => inside(x))) };
}

async function steadyOutsideCuts(video: string, seconds: number, camera: CameraPlan) {
  const cuts = jumps(camera);
  const moves = (await shifts(video, seconds)).filter((m) => !cuts.some((c) => Math.abs(m.t - c) < 0.1));
  return Math.max(0, ...moves.map((m) => m.shift));
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "clipd-reframe-fx-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("reframe", () => {
  it("follows one person through a slow pan, steadily", async () => {
    const { file } = await fixture("pan");
    const { camera } = await reframe(file, [{ start: 0, end: SCENES.pan.seconds }]);
    expect(camera?.layout).toBe("follow");
    expect(camera?.persons).toHaveLength(1);
    const r = await faceInFrame("pan", camera!);
    expect(r.share).toBeGreaterThanOrEqual(0.95);
    expect(await steadyOutsideCuts(r.video, SCENES.pan.seconds, camera!)).toBeLessThanOrEqual(0.02);
  }, 300_000);

  it("frames the active speaker of a two-shot from half a second after each change", async () => {
    const fx = await fixture("two");
    const { camera } = await reframe(fx.file, [{ start: 0, end: SCENES.two.seconds }], { layout: "follow" });
    expect(camera?.layout).toBe("follow");
    const r = await faceInFrame("two", camera!);
    expect(r.share).toBeGreaterThanOrEqual(0.95);
    const ref = { a: await descriptorOf(fx.tiles.a), b: await descriptorOf(fx.tiles.b) };
    expect(speakerShare(r.frames, SCENES.two.turns, ref)).toBeGreaterThanOrEqual(0.9);
    expect(await steadyOutsideCuts(r.video, SCENES.two.seconds, camera!)).toBeLessThanOrEqual(0.02);
  }, 300_000);

  it("chooses a split screen for a wide two-shot, both faces whole", async () => {
    const { file } = await fixture("two");
    const { camera } = await reframe(file, [{ start: 0, end: SCENES.two.seconds }]);
    expect(camera?.layout).toBe("split");
    const r = await faceInFrame("two", camera!);
    expect(share(r.frames, (f) => f.faces.filter((x) => inside(x)).length >= 2)).toBeGreaterThanOrEqual(0.95);
  }, 300_000);

  it("cuts with the close-ups and knows the same person across cuts", async () => {
    const { file } = await fixture("closeups");
    const { camera } = await reframe(file, [{ start: 0, end: SCENES.closeups.seconds }]);
    expect(camera?.layout).toBe("follow");
    expect(camera?.persons).toHaveLength(2);
    expect(camera?.scenes.map((s) => s.persons)).toEqual([[1], [2], [1]]);
    const r = await faceInFrame("closeups", camera!);
    expect(r.share).toBeGreaterThanOrEqual(0.95);
    expect(await steadyOutsideCuts(r.video, SCENES.closeups.seconds, camera!)).toBeLessThanOrEqual(0.02);
  }, 300_000);

  it("finds a face that enters and keeps it whole once it is in", async () => {
    const { file } = await fixture("entering");
    const { camera } = await reframe(file, [{ start: 0, end: SCENES.entering.seconds }]);
    expect(camera?.layout).toBe("follow");
    const r = await faceInFrame("entering", camera!, 5);
    expect(r.share).toBeGreaterThanOrEqual(0.95);
    expect(await steadyOutsideCuts(r.video, SCENES.entering.seconds, camera!)).toBeLessThanOrEqual(0.02);
  }, 300_000);

  it("fits the whole picture of a screen share with no face", async () => {
    const { file } = await fixture("slide");
    const { camera } = await reframe(file, [{ start: 0, end: SCENES.slide.seconds }]);
    expect(camera?.layout).toBe("whole");
    expect(camera?.persons).toEqual([]);
  }, 300_000);
});
