// The time left the site shows (web/src/studio/use-progress-words.ts): it only falls within a
// stage, but it never says "under a minute left" while the server says minutes remain (issue 36).
import { describe, expect, it } from "vitest";
import { fallingEta, minutesText } from "../../web/src/studio/use-progress-words.js";

describe("the shown time left", () => {
  it("does not rise on a larger estimate while the count-down has minutes left", () => {
    const a = fallingEta(null, "transcribing", 300, 0);
    expect(a.shown).toBe(300);
    const b = fallingEta(a.eta, "transcribing", 600, 60_000);
    expect(b.shown).toBe(240);
  });
  it("takes the server's minutes once its own count-down is under a minute", () => {
    const a = fallingEta(null, "transcribing", 90, 0);
    // 60 s later the count-down says 30 s; the server still says 4 minutes.
    const b = fallingEta(a.eta, "transcribing", 240, 60_000);
    expect(minutesText(b.shown)).toBe("about 4 minutes left");
    // Then it counts down from there, and a lower estimate still wins.
    expect(fallingEta(b.eta, "transcribing", 200, 70_000).shown).toBe(200);
  });
  it("says under a minute only when the server agrees", () => {
    const a = fallingEta(null, "searching", 90, 0);
    expect(minutesText(fallingEta(a.eta, "searching", 40, 60_000).shown)).toBe("under a minute left");
  });
});
