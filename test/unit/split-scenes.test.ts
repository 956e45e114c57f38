// Scenes of a clip's piece for the per-scene crop (plugins/cut/focus.ts): short scenes in the middle
// join a neighbour, so the frame does not twitch; a short scene at either edge is a shot of its own.
import { describe, expect, it } from "vitest";
import { audioHook, audioLayout } from "../../daemon/render/audio-template.js";
import { splitScenes } from "../../plugins/cut/focus.js";

describe("splitScenes", () => {
  it("keeps a short scene at the start or the end as its own", () => {
    expect(splitScenes([0.27], 2, 1)).toEqual([
      [0, 0.27],
      [0.27, 2],
    ]);
    expect(splitScenes([1.8], 2, 1)).toEqual([
      [0, 1.8],
      [1.8, 2],
    ]);
    expect(splitScenes([0.3, 2.7], 3, 1)).toEqual([
      [0, 0.3],
      [0.3, 2.7],
      [2.7, 3],
    ]);
  });

  it("folds short scenes in the middle, and a detection wobble at an edge", () => {
    expect(splitScenes([1, 1.4], 3, 1)).toEqual([
      [0, 1.4],
      [1.4, 3],
    ]);
    expect(splitScenes([0.03], 2, 1)).toEqual([[0, 2]]);
    expect(splitScenes([], 2, 1)).toEqual([[0, 2]]);
  });
});

describe("audioHook", () => {
  it("draws no box that repeats the still's title, and puts other words below the cover", () => {
    expect(audioHook("Ask not, what your country…", "Ask not what your country", 1080, 1920).text).toBeUndefined();
    const own = audioHook("Five words nobody said", "Ask not what your country", 1080, 1920);
    expect(own.text).toBe("Five words nobody said");
    const L = audioLayout(1080, 1920);
    expect(own.top).toBeGreaterThan(L.cover.y + L.cover.h);
    expect(own.top).toBeGreaterThanOrEqual(L.text.y + L.text.h);
  });
});
