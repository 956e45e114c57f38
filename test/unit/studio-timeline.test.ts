// The studio page's arithmetic (web/src/studio/timeline.ts): clock times, the clip marks on the
// waveform strip, the ranking of found clips, and the way a Preview walks a clip's pieces.
import { describe, expect, it } from "vitest";
import { clock, lengthOf, marksFor, piecesOf, previewStep, ranked } from "../../web/src/studio/timeline";

describe("studio timeline", () => {
  it("writes times as m:ss, and h:mm:ss from an hour", () => {
    expect(clock(0)).toBe("0:00");
    expect(clock(9.9)).toBe("0:09");
    expect(clock(75)).toBe("1:15");
    expect(clock(3600 + 62)).toBe("1:01:02");
    expect(clock(-3)).toBe("0:00");
    expect(clock(Number.NaN)).toBe("0:00");
  });

  it("takes a clip's known pieces in order, else its start to its end", () => {
    const clip = { start_seconds: 10, end_seconds: 40 };
    expect(piecesOf(clip)).toEqual([{ start: 10, end: 40 }]);
    expect(piecesOf(clip, [])).toEqual([{ start: 10, end: 40 }]);
    expect(
      piecesOf(clip, [
        { start: 30, end: 40 },
        { start: 10, end: 15 },
        { start: 20, end: 20 },
      ]),
    ).toEqual([
      { start: 10, end: 15 },
      { start: 30, end: 40 },
    ]);
    expect(piecesOf({ start_seconds: 5, end_seconds: 5 })).toEqual([]);
    expect(
      lengthOf([
        { start: 10, end: 15 },
        { start: 30, end: 40 },
      ]),
    ).toBe(15);
  });

  it("marks pieces on the strip in percent, visible when short and inside the strip", () => {
    expect(marksFor([{ start: 25, end: 50 }], 100)).toEqual([{ left: 25, width: 25, start: 25, end: 50 }]);
    // 0.1 s of an hour would be invisible: it gets the minimum width
    expect(marksFor([{ start: 1800, end: 1800.1 }], 3600)[0]).toMatchObject({ left: 50, width: 0.6 });
    // a short piece at the very end stays inside the strip
    expect(marksFor([{ start: 99.9, end: 100 }], 100)[0]).toMatchObject({ left: 99.4, width: 0.6 });
    // past the end: cut to it, or left out when wholly past
    expect(marksFor([{ start: 90, end: 130 }], 100)[0]).toMatchObject({ left: 90, width: 10, end: 100 });
    expect(marksFor([{ start: 120, end: 130 }], 100)).toEqual([]);
    // no duration known: nothing to draw against
    expect(marksFor([{ start: 1, end: 2 }], null)).toEqual([]);
    expect(marksFor([{ start: 1, end: 2 }], 0)).toEqual([]);
  });

  it("ranks clips by score, unscored last, ties in episode order", () => {
    const clips = [
      { number: 1, score: 0.4 },
      { number: 2, score: null },
      { number: 3, score: 0.9 },
      { number: 4, score: 0.4 },
    ];
    expect(ranked(clips).map((c) => c.number)).toEqual([3, 1, 4, 2]);
    expect(clips.map((c) => c.number)).toEqual([1, 2, 3, 4]); // the input is left as it was
  });

  it("plays a piece to its end, jumps to the next piece, and stops after the last", () => {
    const pieces = [
      { start: 10, end: 15 },
      { start: 30, end: 40 },
    ];
    expect(previewStep(pieces, 0, 9.5)).toEqual({ kind: "play" }); // still seeking to the start
    expect(previewStep(pieces, 0, 12)).toEqual({ kind: "play" });
    expect(previewStep(pieces, 0, 14.97)).toEqual({ kind: "seek", index: 1, to: 30 });
    expect(previewStep(pieces, 0, 20)).toEqual({ kind: "seek", index: 1, to: 30 });
    expect(previewStep(pieces, 1, 35)).toEqual({ kind: "play" });
    expect(previewStep(pieces, 1, 40)).toEqual({ kind: "stop" });
    expect(previewStep(pieces, 2, 0)).toEqual({ kind: "stop" });
    expect(previewStep([], 0, 0)).toEqual({ kind: "stop" });
  });
});
