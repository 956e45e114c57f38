// A brief that says where its moment came ("told at the end of the show") is read for that place,
// and only when the words place a moment in the recording, not when they name another thing's end.
import { describe, expect, it } from "vitest";
import { briefScorer } from "../../plugins/find-clips/brief.js";
import { placeFit, placeIn } from "../../plugins/find-clips/position.js";

describe("a brief's place in the recording", () => {
  it("reads phrases that place a moment, and not those that name a topic's end", () => {
    expect(placeIn("a love story, told at the end of the show")).toBe("end");
    expect(placeIn("the bit near the very end where she laughs")).toBe("end");
    expect(placeIn("the caller late in the episode who sold his boat")).toBe("end");
    expect(placeIn("the joke that opened the podcast")).toBe("start");
    expect(placeIn("what the host said at the beginning of this episode about rent")).toBe("start");
    expect(placeIn("the argument halfway through about fences")).toBe("middle");
    expect(placeIn("what happened at the end of the war")).toBeUndefined();
    expect(placeIn("weekly notes sent to a late relative's phone")).toBeUndefined();
    expect(placeIn("how to start a sourdough starter")).toBeUndefined();
  });

  it("fits a passage by where its middle lies", () => {
    expect(placeFit("end", 0.9)).toBeCloseTo(0.9);
    expect(placeFit("start", 0.1)).toBeCloseTo(0.9);
    expect(placeFit("middle", 0.5)).toBe(1);
    expect(placeFit("middle", 0)).toBe(0);
  });

  it("ranks the later of two equal passages first when the brief puts its moment at the end", () => {
    const passage = (start: number, text: string) => {
      const words = text.split(" ").map((t, i) => ({ text: t, start: start + i * 0.4, end: start + i * 0.4 + 0.3 }));
      const s = { words, start, end: start + 30, text, index: start };
      return { words, sentences: [s], start, end: start + 30 };
    };
    const a = passage(30, "The lighthouse keeper kept a diary of every storm for forty winters.");
    const filler = passage(200, "Rain fell on the harbour roofs while the gulls argued over bread.");
    const b = passage(500, "The lighthouse keeper kept a diary of every storm for forty winters.");
    const about = "the lighthouse keeper's storm diary, told at the end of the show";
    const score = briefScorer([a, filler, b], about, 540);
    expect(score(2, 0.5).value).toBeGreaterThan(score(0, 0.5).value);
    const plain = briefScorer([a, filler, b], "the lighthouse keeper's storm diary", 540);
    expect(plain(2, 0.5).value).toBeCloseTo(plain(0, 0.5).value);
  });
});
