// Scenes of a clip's piece for the per-scene crop (plugins/cut/focus.ts): short scenes in the middle
// join a neighbour, so the frame does not twitch; a short scene at either edge is a shot of its own.
import { describe, expect, it } from "vitest";
import { audioHook, audioLayout, type Box } from "../../daemon/render/audio-template.js";
import { logoPlace } from "../../daemon/render/logo-place.js";
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
  it("draws no box that repeats the still's title, and gives other words the waveform's band", () => {
    expect(audioHook("Ask not, what your country…", "Ask not what your country", 1080, 1920).text).toBeUndefined();
    const own = audioHook("Five words nobody said", "Ask not what your country", 1080, 1920);
    expect(own.text).toBe("Five words nobody said");
    const L = audioLayout(1080, 1920);
    expect(own.band).toEqual(L.wave);
    expect(own.band.y).toBeGreaterThan(L.cover.y + L.cover.h);
    expect(own.band.y).toBeGreaterThanOrEqual(L.text.y + L.text.h);
  });

  it("keeps every element clear of a logo in a top corner, in every shape", () => {
    const apart = (a: Box, b: Box) => a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
    for (const [W, H] of [
      [1080, 1920],
      [1080, 1350],
      [1080, 1080],
      [1920, 1080],
    ] as const)
      for (const corner of ["top-left", "top-right"] as const)
        for (const size of [0.15, 0.2]) {
          const L = audioLayout(W, H, { corner, size });
          const logo = logoPlace(W, H, { corner, size })!;
          const at = `${W}x${H} ${corner} ${size}`;
          for (const [name, box] of Object.entries({ cover: L.cover, text: L.text, wave: L.wave }))
            expect(apart(box, logo), `${at}: ${name}`).toBe(true);
          expect(L.wave.y + L.wave.h, at).toBeLessThanOrEqual(Math.round(H * 0.68) + 2);
          expect(L.text.w, at).toBeGreaterThan(W * 0.25);
        }
  });
});
