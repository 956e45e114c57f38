// What the poster stage draws (plugins/poster/draw.ts): the time of the hook's first word, and the
// title band in the given colours, read back as pixels after sharp lays it over a frame.
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { hookStart, svgColour, titleSvg } from "../../plugins/poster/draw.js";

const words = ["Well,", "so.", "Ask", "not", "what", "your", "country"].map((text, i) => ({
  text,
  start: i * 0.5,
  end: i * 0.5 + 0.4,
}));

describe("hookStart", () => {
  it("finds the hook by its first words, 50 ms into its first word", () => {
    expect(hookStart(words, "Ask not what your country can do")).toBeCloseTo(1.05, 5);
    expect(hookStart(words, "ask")).toBeCloseTo(1.05, 5);
  });
  it("falls back to the clip's first word, and to 0 without words", () => {
    expect(hookStart(words, "Nothing of the kind")).toBeCloseTo(0.05, 5);
    expect(hookStart(words, null)).toBeCloseTo(0.05, 5);
    expect(hookStart([], "Ask not")).toBe(0);
  });
});

describe("titleSvg", () => {
  it("reads #RRGGBBAA as a colour and an opacity", () => {
    expect(svgColour("#000000D0")).toEqual({ colour: "#000000", opacity: +(0xd0 / 255).toFixed(3) });
    expect(svgColour("#12AB34")).toEqual({ colour: "#12AB34", opacity: 1 });
  });

  it("draws the box in the brand's background colour in the top part, and leaves the rest of the frame", async () => {
    const size = { width: 360, height: 640 };
    const frame = await sharp({ create: { ...size, channels: 3, background: "#808080" } })
      .png()
      .toBuffer();
    const svg = titleSvg("Why the bakery opens at five", {
      ...size,
      box: "#1D4ED8",
      text: "#FFFFFF",
      accent: "#F59E0B",
      font: "DejaVu Sans",
    });
    const { data, info } = await sharp(frame)
      .composite([{ input: svg, top: 0, left: 0 }])
      .raw()
      .toBuffer({ resolveWithObject: true });
    const px = (x: number, y: number) => [
      ...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3),
    ];
    // Just inside the box's left edge, below its rounded corner: the brand's blue.
    const boxLeft = data.findIndex(
      (_, i) => i % 3 === 0 && Math.floor(i / 3 / info.width) === 60 && data[i] === 0x1d && data[i + 2] === 0xd8,
    );
    expect(boxLeft).toBeGreaterThan(-1);
    expect(px(5, 600)).toEqual([128, 128, 128]);
    // Some of the title's text is white, and the accent bar is there in amber.
    const count = (rgb: number[]) => {
      let n = 0;
      for (let i = 0; i < data.length; i += 3)
        if (Math.abs(data[i]! - rgb[0]!) + Math.abs(data[i + 1]! - rgb[1]!) + Math.abs(data[i + 2]! - rgb[2]!) < 12)
          n++;
      return n;
    };
    expect(count([255, 255, 255])).toBeGreaterThan(200);
    expect(count([0xf5, 0x9e, 0x0b])).toBeGreaterThan(50);
  });
});
