// The camera operator's rules on made-up sightings (plugins/cut/camera-plan.ts, speaker.ts, voice.ts):
// a head that sways inside the dead zone moves nothing, a move keeps under the speed limit, a change
// of speaker is a cut, an unsure moment frames both people when they fit, and stereo channels tell
// who talks when the mouths do not.
import { describe, expect, it } from "vitest";
import { cropRect, positionAt } from "../../daemon/render/camera.js";
import { type PlanScene, planCamera } from "../../plugins/cut/camera-plan.js";
import type { Person } from "../../plugins/cut/people.js";
import { sceneTurns } from "../../plugins/cut/speaker.js";
import { type Voice, voiceOf } from "../../plugins/cut/voice.js";

const times = Array.from({ length: 36 }, (_, i) => i / 3);
const person = (id: number, x: (t: number) => number, mouth: (t: number) => number = () => 1): Person => ({
  id,
  sightings: times.map((t) => ({ t, x: x(t), y: 0.5, w: 0.1, h: 0.18, score: 0.9, mouth: mouth(t) })),
});
const scene = (turns: PlanScene["turns"]): PlanScene => ({
  start: 0,
  end: 12,
  x: 0.5,
  y: 0.5,
  motion: 5,
  detail: 0,
  turns,
});
const NARROW = cropRect({ x: 0.5, y: 0.5 }, 9 / 16, 16 / 9).w;

describe("the camera plan", () => {
  it("holds still while a head sways inside the dead zone", () => {
    const p = person(1, (t) => 0.4 + 0.02 * Math.sin(t * 3));
    const plan = planCamera({
      scenes: [scene([{ start: 0, end: 12, person: 1 }])],
      people: [p],
      times,
      asked: "auto",
      sourceAspect: 16 / 9,
    });
    expect(plan.layout).toBe("follow");
    expect(new Set(plan.paths[0]!.map((k) => k.x)).size).toBe(1);
  });

  it("moves under the speed limit when the subject walks away, and cuts on a change of speaker", () => {
    const walker = person(1, (t) => 0.2 + 0.05 * t);
    const plan = planCamera({
      scenes: [scene([{ start: 0, end: 12, person: 1 }])],
      people: [walker],
      times,
      asked: "follow",
      sourceAspect: 16 / 9,
    });
    const path = plan.paths[0]!;
    let fastest = 0;
    for (let t = 0; t < 12; t += 1 / 30)
      fastest = Math.max(fastest, Math.abs(positionAt(path, t + 1 / 30).x - positionAt(path, t).x));
    expect(fastest).toBeLessThanOrEqual(0.02 * NARROW);
    expect(path.some((k) => k.cut)).toBe(false);

    const a = person(1, () => 0.2);
    const b = person(2, () => 0.8);
    const turns = [
      { start: 0, end: 6, person: 1 },
      { start: 6, end: 12, person: 2 },
    ];
    const two = planCamera({ scenes: [scene(turns)], people: [a, b], times, asked: "follow", sourceAspect: 16 / 9 });
    const cut = two.paths[0]!.find((k) => k.cut);
    expect(cut?.t).toBeCloseTo(6, 0);
    expect(positionAt(two.paths[0]!, 3).x).toBeCloseTo(0.2, 2);
    expect(positionAt(two.paths[0]!, 9).x).toBeCloseTo(0.8, 2);
    // Far apart in one wide shot: auto chooses the split screen, one path each, left first.
    const split = planCamera({ scenes: [scene(turns)], people: [b, a], times, asked: "auto", sourceAspect: 16 / 9 });
    expect(split.layout).toBe("split");
    expect(split.paths.map((p) => positionAt(p, 1).x)).toEqual([0.2, 0.8]);
  });

  it("frames both people when nobody can be told and they fit together", () => {
    const a = person(1, () => 0.45);
    const b = person(2, () => 0.55);
    const plan = planCamera({
      scenes: [scene([{ start: 0, end: 12, person: null }])],
      people: [a, b],
      times,
      asked: "auto",
      sourceAspect: 16 / 9,
    });
    expect(plan.layout).toBe("follow");
    expect(positionAt(plan.paths[0]!, 5).x).toBeCloseTo(0.5, 2);
  });
});

describe("who talks", () => {
  const loud = (left: number, right: number, n = 120) => {
    const l = { level: [] as number[], left: [] as number[], right: [] as number[] };
    for (let i = 0; i < n; i++) {
      const [L, R] = i < n / 2 ? [left, right] : [right, left];
      l.left.push(L);
      l.right.push(R);
      l.level.push(Math.max(L, R) - 3);
    }
    return voiceOf(l);
  };

  it("is the face whose mouth moves while the voice is on", () => {
    const a = person(
      1,
      () => 0.2,
      (t) => (t < 6 ? 1 + 0.1 * (Math.round(t * 3) % 2) : 1),
    );
    const b = person(
      2,
      () => 0.8,
      (t) => (t >= 6 ? 1 + 0.1 * (Math.round(t * 3) % 2) : 1),
    );
    const voice: Voice = loud(-20, -20);
    const turns = sceneTurns([a, b], voice, { start: 0, end: 12 }, times);
    expect(turns.map((t) => t.person)).toEqual([1, 2]);
    expect(turns[1]!.start).toBeGreaterThan(5);
    expect(turns[1]!.start).toBeLessThan(7);
  });

  it("comes from the louder channel of a one-voice-a-channel recording when the mouths do not say", () => {
    const a = person(1, () => 0.2);
    const b = person(2, () => 0.8);
    const voice = loud(-20, -45);
    expect(voice.split).toBe(true);
    const turns = sceneTurns([a, b], voice, { start: 0, end: 12 }, times);
    expect(turns.map((t) => t.person)).toEqual([1, 2]);
  });

  it("is nobody when the mouths and the channels say nothing", () => {
    const turns = sceneTurns(
      [person(1, () => 0.2), person(2, () => 0.8)],
      loud(-20, -20),
      { start: 0, end: 12 },
      times,
    );
    expect(turns.map((t) => t.person)).toEqual([null]);
  });
});
