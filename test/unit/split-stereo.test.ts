// When a stereo recording counts as one voice per side (issue 39): by how far apart the two
// channels are in the windows where someone speaks, not only when one side is silent. Levels are
// per 100 ms window in dBFS, as measureClipAudio reads them from astats.
import { describe, expect, it } from "vitest";
import { isSplitStereo } from "../../daemon/render/loudness.js";

/** `n` windows of the host on the left, then `n` of the guest on the right, each `bleed` dB down on the other side. */
function twoMics(bleed: number, n = 20): { left: number[]; right: number[] } {
  const left: number[] = [];
  const right: number[] = [];
  for (let i = 0; i < n; i++) left.push(-20 + (i % 3)), right.push(-20 + (i % 3) - bleed);
  for (let i = 0; i < n; i++) right.push(-22 + (i % 2)), left.push(-22 + (i % 2) - bleed);
  return { left, right };
}

describe("split stereo", () => {
  it("folds two microphones with −10 dB of bleed, as it folds a silent side", () => {
    const bleed10 = twoMics(10);
    expect(isSplitStereo(bleed10.left, bleed10.right)).toBe(true);
    const silent = twoMics(100);
    expect(isSplitStereo(silent.left, silent.right)).toBe(true);
    expect(isSplitStereo(twoMics(7).left, twoMics(7).right)).toBe(true);
  });

  it("leaves a stereo room, a centred voice and one voice to one side alone", () => {
    const room = twoMics(3);
    expect(isSplitStereo(room.left, room.right)).toBe(false);
    const centred = Array.from({ length: 40 }, (_, i) => -20 - (i % 4));
    expect(isSplitStereo(centred, centred)).toBe(false);
    // One voice, louder on the left all along: nothing to fold between two people.
    const oneSide = Array.from({ length: 40 }, () => -20);
    expect(
      isSplitStereo(
        oneSide,
        oneSide.map((v) => v - 10),
      ),
    ).toBe(false);
  });
});
