import { describe, expect, it } from "vitest";
import { breakLines } from "../../daemon/render/captions.js";
import {
  assColour,
  assTime,
  buildAss,
  escapeAssText,
  stepPosition,
  stepSize,
  toAssCues,
  type CaptionStyle,
} from "../../daemon/render/ass.js";
import { loadStyles } from "../../daemon/render/styles.js";

const words = (text: string, from = 0, step = 0.4) =>
  text.split(" ").map((t, i) => ({
    text: t,
    start: +(from + i * step).toFixed(2),
    end: +(from + i * step + step - 0.05).toFixed(2),
  }));

const dialogues = (ass: string) => ass.split("\n").filter((l) => l.startsWith("Dialogue:"));
const textOf = (line: string) => line.split(",").slice(9).join(",");

describe("ASS text", () => {
  it("escapes braces and backslashes so they print literally", () => {
    expect(escapeAssText("a{b}c")).toBe("a\\{b\\}c");
    // \N would be a line break and \h a hard space: the backslash is separated by a word joiner.
    expect(escapeAssText("x\\N y\\h")).toBe("x\\\u2060N y\\\u2060h");
    expect(escapeAssText("{\\b1}")).toBe("\\{\\\u2060b1\\}");
    expect(escapeAssText("two\nlines")).toBe("two lines");
  });

  it("converts colours and times", () => {
    expect(assColour("#FFE600")).toBe("&H0000E6FF");
    expect(assColour("#00000080")).toBe("&H7F000000");
    expect(() => assColour("yellow")).toThrow(/#RRGGBB/);
    expect(assTime(0)).toBe("0:00:00.00");
    expect(assTime(3723.456)).toBe("1:02:03.46");
  });
});

describe("line breaking", () => {
  it("keeps short text on one line and balances two lines", () => {
    expect(breakLines(["short", "text"], 20)).toEqual([["short", "text"]]);
    const lines = breakLines("the quick brown fox jumps over the lazy dog".split(" "), 24);
    expect(lines).toHaveLength(2);
    const lens = lines.map((l) => l.join(" ").length);
    expect(Math.max(...lens)).toBeLessThanOrEqual(24);
    expect(Math.abs(lens[0] - lens[1])).toBeLessThanOrEqual(6);
  });

  it("never makes more than the allowed lines and never splits a word", () => {
    const lines = breakLines(["supercalifragilistic", "word"], 8);
    expect(lines.length).toBeLessThanOrEqual(2);
    expect(lines.flat()).toEqual(["supercalifragilistic", "word"]);
  });

  it("groups words into cues of at most two lines, split at sentences and pauses", () => {
    const ws = [...words("This is the first sentence of the test.", 0), ...words("After a pause comes another one", 5)];
    const cues = toAssCues(ws, { maxChars: 16, maxSeconds: 10 });
    for (const c of cues) {
      expect(c.lines.length).toBeLessThanOrEqual(2);
      for (const l of c.lines) expect(l.map((w) => w.text).join(" ").length).toBeLessThanOrEqual(16);
      expect(c.end).toBeGreaterThan(c.start);
    }
    expect(cues.flatMap((c) => c.words.map((w) => w.text))).toEqual(ws.map((w) => w.text));
    expect(cues.some((c) => c.words.some((w) => w.text === "test.") && c.words.some((w) => w.text === "After"))).toBe(
      false,
    );
    for (let i = 1; i < cues.length; i++) expect(cues[i].start).toBeGreaterThanOrEqual(cues[i - 1].end);
  });
});

describe("buildAss", () => {
  const catalogue = loadStyles();
  const style = (id: string) => catalogue.styles.find((s) => s.id === id) as CaptionStyle;
  const base = { width: 1080, height: 1920, size: "medium" as const, position: "bottom" as const, duration: 10 };

  it("has at least six styles, two or more of them animated", () => {
    expect(catalogue.styles.length).toBeGreaterThanOrEqual(6);
    expect(catalogue.styles.filter((s) => s.animation !== "none").length).toBeGreaterThanOrEqual(2);
    expect(new Set(catalogue.styles.map((s) => s.id)).size).toBe(catalogue.styles.length);
  });

  it("writes a static caption per cue with safe margins and explicit breaks", () => {
    const ass = buildAss(words("Hello {world} this is a caption test with quite a few words"), {
      ...base,
      style: style("clean"),
      highlight: false,
    });
    expect(ass).toContain("PlayResX: 1080");
    expect(ass).toContain("WrapStyle: 2");
    const caption = ass
      .split("\n")
      .find((l) => l.startsWith("Style: Caption,"))!
      .split(",");
    expect(Number(caption[19])).toBeGreaterThanOrEqual(80); // MarginL
    expect(Number(caption[21])).toBeGreaterThanOrEqual(300); // MarginV keeps clear of app buttons
    const lines = dialogues(ass);
    expect(lines.join("\n")).toContain("Hello \\{world\\}");
    for (const l of lines) expect(textOf(l).split("\\N").length).toBeLessThanOrEqual(2);
  });

  it("makes one event per word with the active word highlighted", () => {
    const ws = words("one two three");
    const ass = buildAss(ws, { ...base, style: style("bold-punch"), highlight: true });
    const lines = dialogues(ass);
    expect(lines).toHaveLength(3);
    expect(textOf(lines[1])).toBe("ONE {\\1c&H0000E6FF}TWO{\\1c&H00FFFFFF\\fscx100\\fscy100} THREE");
  });

  it("uses \\kf timing for karaoke and adds the hook title box on top", () => {
    const ass = buildAss(words("ask not what"), {
      ...base,
      style: style("karaoke"),
      highlight: true,
      hookTitle: "Ask {not}",
    });
    const lines = dialogues(ass);
    expect(textOf(lines[0])).toMatch(/^\{\\kf35\}ask \{\\k5\}\{\\kf35\}not/);
    const hook = lines.find((l) => l.includes(",Hook,"))!;
    expect(hook).toMatch(/^Dialogue: 1,0:00:00.00,0:00:03.00,Hook/);
    expect(textOf(hook)).toContain("Ask \\{not\\}");
  });

  it("steps size and position one notch at a time", () => {
    expect(stepSize("medium", "bigger")).toBe("large");
    expect(stepSize("extra_large", "bigger")).toBe("extra_large");
    expect(stepSize("small", "smaller")).toBe("small");
    expect(stepSize("large", "small")).toBe("small");
    expect(stepPosition("bottom", "up")).toBe("lower");
    expect(stepPosition("top", "up")).toBe("top");
    expect(stepPosition("middle", "down")).toBe("lower");
  });
});
