// Which frames the face finder looks at (plugins/cut/face-schedule.ts): a still picture is detected
// once in 1.5 s, landmarks are asked only while a voice is heard with two faces on screen, a
// wholesale change is detected at once as fresh, and the frames between get the faces either side.
import { describe, expect, it } from "vitest";
import { FaceSchedule, fillSkipped, glance } from "../../plugins/cut/face-schedule.js";
import type { FoundFace } from "../../plugins/cut/face-child.js";

const frame = (grey: number, width = 64, height = 36) => ({
  t: 0,
  width,
  height,
  rgb: Buffer.alloc(width * height * 3, grey),
});
const face = (x: number): FoundFace => ({ x, y: 0.5, w: 0.1, h: 0.18, score: 0.9 });
const times = Array.from({ length: 12 }, (_, i) => i / 3);

/** Runs a schedule over frames at 3 a second; `seen` gives the faces each detection finds. */
function run(s: FaceSchedule, grey: (t: number) => number, seen: (t: number) => FoundFace[]) {
  return times.map((t) => {
    const g = glance(frame(grey(t)));
    const ask = s.decide(t, g);
    if (ask.detect) s.seen(t, g, seen(t));
    return { t, ...ask };
  });
}

describe("the face schedule", () => {
  it("detects a still picture once in 1.5 s and asks no landmarks for one face", () => {
    const asks = run(
      new FaceSchedule(() => true),
      () => 100,
      () => [face(0.5)],
    );
    expect(asks.filter((a) => a.detect).map((a) => a.t)).toEqual([0, 5 / 3, 10 / 3]);
    expect(asks.filter((a) => a.marks).map((a) => a.t)).toEqual([0]);
  });

  it("measures two mouths on every frame while a voice is heard, and only then", () => {
    const voiced = (t: number) => t >= 2;
    const asks = run(
      new FaceSchedule(voiced),
      () => 100,
      () => [face(0.3), face(0.7)],
    );
    expect(asks.filter((a) => a.detect).map((a) => a.t)).toEqual([0, 5 / 3, 2, 7 / 3, 8 / 3, 3, 10 / 3, 11 / 3]);
    expect(asks.filter((a) => a.marks).map((a) => a.t)).toEqual([2, 7 / 3, 8 / 3, 3, 10 / 3, 11 / 3]);
  });

  it("detects a cut at once, its faces fresh", () => {
    const asks = run(
      new FaceSchedule(() => false),
      (t) => (t < 1 ? 40 : 200),
      () => [face(0.5)],
    );
    expect(asks.find((a) => a.t === 1)).toMatchObject({ detect: true, fresh: true });
  });

  it("gives the frames between detections the faces either side, moved in step", () => {
    const filled = fillSkipped([
      { t: 0, faces: [{ ...face(0.2), mouth: 1, desc: [1] }] },
      { t: 0.5 },
      { t: 1, faces: [face(0.3)] },
      { t: 1.5 },
      { t: 2, faces: [face(0.8)], fresh: true },
    ]);
    expect(filled[1]!.faces).toEqual([{ ...face(0.25), x: expect.closeTo(0.25, 6) }]);
    // Across a cut the face stays where it was: no made-up move from one shot to the next.
    expect(filled[3]!.faces[0]!.x).toBe(0.3);
  });
});
