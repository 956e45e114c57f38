// The clip editor's preview frames what the render will (issue 37): the page's camera arithmetic
// (web/src/editor/model.ts, a CSS object-position) against the render's window (daemon/render/camera.ts,
// which the reframe tests check on rendered frames), at three moments: held, mid-move and after a cut;
// and a split clip's two windows (splitWindows, drawn on a canvas) against the render's two.
import { describe, expect, it } from "vitest";
import { type CameraPlan, windowsAt } from "../../daemon/render/camera.js";
import { cameraFocus, splitWindows } from "../../web/src/editor/model.js";

const plan = (source_aspect: number): CameraPlan => ({
  version: 1,
  asked: "auto",
  layout: "follow",
  paths: [
    [
      { t: 0, x: 0.25, y: 0.45 },
      { t: 2, x: 0.25, y: 0.45 },
      { t: 4, x: 0.55, y: 0.5 },
      { t: 6, x: 0.8, y: 0.3, cut: true },
    ],
  ],
  persons: [],
  scenes: [],
  source_aspect,
});

describe("the editor's preview and the render", () => {
  for (const [source, shape] of [
    [16 / 9, 9 / 16],
    [16 / 9, 1],
    [16 / 9, 4 / 5],
    [9 / 16, 16 / 9],
  ] as const)
    it(`agree on the window within 2 % of its width (source ${source.toFixed(2)}, shape ${shape.toFixed(2)})`, () => {
      const p = plan(source);
      for (const t of [1, 3.1, 6.5]) {
        const win = windowsAt(p, t, shape)[0]!;
        const focus = cameraFocus(p, t, shape)!;
        // object-fit: cover with object-position f shows the window starting at f of the free range.
        const left = win.w < 1 ? focus.x * (1 - win.w) : 0;
        const top = win.h < 1 ? focus.y * (1 - win.h) : 0;
        expect(Math.abs(left - win.x)).toBeLessThanOrEqual(0.02 * win.w);
        expect(Math.abs(top - win.y)).toBeLessThanOrEqual(0.02 * win.h);
      }
    });

  it("draws a split clip's two windows where the render crops them, stacked in 9:16", () => {
    const p: CameraPlan = {
      ...plan(16 / 9),
      layout: "split",
      paths: [
        [
          { t: 0, x: 0.27, y: 0.5 },
          { t: 4, x: 0.3, y: 0.45 },
        ],
        [{ t: 0, x: 0.73, y: 0.52 }],
      ],
      zoom: [0.6, 0.55],
    };
    expect(cameraFocus(p, 1, 9 / 16)).toBeNull();
    for (const t of [0.5, 2, 5]) {
      const wins = windowsAt(p, t, 9 / 16);
      const halves = splitWindows(p, t, 1080, 1920)!;
      expect(halves.map((h) => h.dst)).toEqual([
        { x: 0, y: 0, w: 1080, h: 960 },
        { x: 0, y: 960, w: 1080, h: 960 },
      ]);
      for (const [i, h] of halves.entries())
        for (const k of ["x", "y", "w", "h"] as const) expect(h.src[k]).toBeCloseTo(wins[i]![k], 4);
    }
  });
});
