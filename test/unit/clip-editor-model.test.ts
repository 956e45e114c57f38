// The clip editor's arithmetic: the server's snapping of a trim (daemon/account/clip-trim.ts) and the
// page's own (web/src/editor/model.ts): handles to word edges, a cut pause put back, clip ↔ source time.
import { describe, expect, it } from "vitest";
import { snapPieces } from "../../daemon/account/clip-trim.js";
import { SpanRefusal } from "../../daemon/account/clip-words.js";
import { clipTime, gapsOf, restoreGap, snap, sourceTime, step, trim } from "../../web/src/editor/model.js";

const words = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => ({ start: i + 0.1, end: i + 0.8 }));

describe("the server's trim", () => {
  it("snaps each edge to the nearest word edge and joins touching pieces", () => {
    expect(snapPieces(words, [{ start: 1.3, end: 3.6 }], 10)).toEqual([{ start: 1.1, end: 3.8 }]);
    expect(
      snapPieces(
        words,
        [
          { start: 1.1, end: 3.8 },
          { start: 3.5, end: 6.8 }, // its start snaps to 3.1, inside the first piece
        ],
        10,
      ),
    ).toEqual([{ start: 1.1, end: 6.8 }]);
  });
  it("refuses a clip outside the episode or the length limits, naming pieces", () => {
    expect(() => snapPieces(words, [{ start: 1.1, end: 1.8 }], 10)).toThrow(SpanRefusal);
    expect(() => snapPieces(words, [{ start: 1.1, end: 30 }], 10)).toThrow(/outside the episode/);
  });
});

describe("the page's trim", () => {
  const pieces = [
    { start: 1.1, end: 3.8 },
    { start: 5.1, end: 8.8 },
  ];
  it("moves an end, dropping pieces wholly past it", () => {
    expect(trim(pieces, "end", 3.8)).toEqual([{ start: 1.1, end: 3.8 }]);
    expect(trim(pieces, "start", 2.1)).toEqual([{ start: 2.1, end: 3.8 }, pieces[1]]);
  });
  it("puts a cut pause back and lists the pauses", () => {
    expect(gapsOf(pieces)).toEqual([{ start: 3.8, end: 5.1 }]);
    expect(restoreGap(pieces, 0)).toEqual([{ start: 1.1, end: 8.8 }]);
  });
  it("snaps and steps to edges, and maps clip time to source time and back", () => {
    expect(snap([1, 2, 3], 2.4)).toBe(2);
    expect(step([1, 2, 3], 2, 1)).toBe(3);
    expect(step([1, 2, 3], 2, -1)).toBe(1);
    expect(sourceTime(pieces, 3)).toBeCloseTo(5.4);
    expect(clipTime(pieces, 5.4)).toBeCloseTo(3);
    expect(clipTime(pieces, 4.5)).toBeNull();
  });
});
