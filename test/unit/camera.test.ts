// The virtual camera's arithmetic (daemon/render/camera.ts) and its `layout` look field (issue 37):
// positions eased between keys and held across a cut, windows for every shape around one point, a
// stored plan checked before it reaches ffmpeg, and layout through the account API. The expressions
// the render evaluates are checked on rendered frames (test/integration/reframe.test.ts).
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { ClipLooks, cutChanged, lookChanges, resolveLook } from "../../daemon/account/clip-look.js";
import {
  type CameraPlan,
  cropRect,
  HEADROOM,
  positionAt,
  readCameraPlan,
  windowsAt,
} from "../../daemon/render/camera.js";
import { R } from "../../facade/operations/_account-requests.js";

const path = [
  { t: 0, x: 0.3, y: 0.5 },
  { t: 2, x: 0.3, y: 0.5 },
  { t: 4, x: 0.5, y: 0.5 },
  { t: 6, x: 0.8, y: 0.4, cut: true },
];

describe("camera", () => {
  it("eases between keys, holds before a cut and jumps at it", () => {
    expect(positionAt(path, 1).x).toBe(0.3);
    expect(positionAt(path, 3).x).toBeCloseTo(0.4, 5);
    expect(positionAt(path, 2.5).x).toBeGreaterThan(0.3);
    expect(positionAt(path, 2.5).x).toBeLessThan(0.35);
    expect(positionAt(path, 5.99).x).toBe(0.5);
    expect(positionAt(path, 6)).toEqual({ x: 0.8, y: 0.4 });
  });

  it("puts every shape's window around the same point, the face below the window's top by the headroom", () => {
    const src = 16 / 9;
    for (const shape of [9 / 16, 1, 4 / 5]) {
      const w = cropRect({ x: 0.5, y: 0.5 }, shape, src);
      expect(w.x + w.w / 2).toBeCloseTo(0.5, 6);
      expect(w.h).toBe(1);
    }
    // A window is never outside the picture, however near the edge the subject is.
    const edge = cropRect({ x: 0.98, y: 0.5 }, 9 / 16, src);
    expect(edge.x + edge.w).toBeCloseTo(1, 6);
    // An upright source in 16:9: the height is cropped, with room above the face.
    const wide = cropRect({ x: 0.5, y: 0.5 }, 16 / 9, 9 / 16);
    expect(wide.y).toBeCloseTo(0.5 - HEADROOM * wide.h, 6);
  });

  it("reads a stored plan only when well formed", () => {
    const good: CameraPlan = {
      version: 1,
      asked: "auto",
      layout: "follow",
      paths: [path],
      persons: [],
      scenes: [],
      source_aspect: 16 / 9,
    };
    expect(readCameraPlan(good)?.paths[0]).toHaveLength(4);
    expect(readCameraPlan({ ...good, layout: "split" })).toBeUndefined();
    expect(readCameraPlan({ ...good, paths: [[{ t: 0, x: "1;drop", y: 0 }]] })).toBeUndefined();
    expect(readCameraPlan({ ...good, version: 2 })).toBeUndefined();
    expect(windowsAt({ ...good, layout: "whole", paths: [] }, 1, 9 / 16)).toEqual([{ x: 0, y: 0, w: 1, h: 1 }]);
  });

  it("is a look field of the account API that cuts the clip again, spelled out to the cut only", () => {
    const check = new Ajv({ strict: false }).compile(R.restyleBody);
    expect(check({ layout: "split" })).toBe(true);
    expect(check({ layout: "zoom" })).toBe(false);
    const looks = new ClipLooks();
    const base = looks.serviceLook();
    expect(base.layout).toBe("auto");
    const split = resolveLook(base, { layout: "split" });
    const changes = lookChanges(base, split);
    expect(changes).toEqual([{ field: "layout", from: "auto", to: "split" }]);
    expect(cutChanged(changes)).toBe(true);
    expect(looks.runOptions(split, "cut")).toMatchObject({ layout: "split" });
    expect(looks.runOptions(split, "render")).not.toHaveProperty("layout");
  });
});
