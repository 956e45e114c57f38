import { describe, expect, it } from "vitest";
import {
  bleepFilter,
  bleepSpans,
  censorWords,
  isListed,
  loadWordList,
  maskText,
  parseWordList,
} from "../../daemon/render/censor.js";
import { emphasize, keyTerms, loadEmojiMap } from "../../daemon/render/emphasis.js";
import { buildAss } from "../../daemon/render/ass.js";
import { assFontName, brandStyle, loadStyles } from "../../daemon/render/styles.js";

const list = loadWordList();
const mask = (t: string) => maskText(t, list).text;

describe("censor: the word list and masking", () => {
  it("masks a listed word whatever its case and the punctuation around it, keeping the first letter", () => {
    expect(mask("fuck")).toBe("f***");
    expect(mask("Fuck,")).toBe("F***,");
    expect(mask("SHIT!")).toBe("S***!");
    expect(mask("“bullshit.”")).toBe("“b*******.”");
    expect(mask("(damn)")).toBe("(d***)");
    expect(mask("Fück")).toBe("F***");
  });

  it("matches prefixes marked * and the words of a hyphenated word one by one", () => {
    expect(mask("fucking")).toBe("f******");
    expect(mask("Motherfucker")).toBe("M***********");
    expect(mask("fuckin'")).toBe("f*****'");
    expect(mask("bull-shit")).toBe("bull-s***");
    expect(mask("shit's")).toBe("s***'s");
    expect(mask("Fuck’s")).toBe("F***’s");
  });

  it("matches whole words only: Scunthorpe, class, assume, cocktail, Dickens and shiitake stay", () => {
    for (const w of [
      "Scunthorpe",
      "class",
      "assume",
      "Assess",
      "cocktail",
      "Dickens",
      "shiitake",
      "hello",
      "classic",
      "Penistone",
      "pass",
      "title",
    ]) {
      expect(mask(w), w).toBe(w);
      expect(isListed(w, list), w).toBe(false);
    }
  });

  it("reports which words were masked and keeps their times", () => {
    const words = [
      { text: "What", start: 0, end: 0.3 },
      { text: "the", start: 0.3, end: 0.5 },
      { text: "hell,", start: 0.5, end: 0.8 },
      { text: "fuck.", start: 1.0, end: 1.4 },
    ];
    const c = censorWords(words, list);
    expect(c.listed).toEqual([3]);
    expect(c.words.map((w) => w.text)).toEqual(["What", "the", "hell,", "f***."]);
    expect(c.words[3]).toMatchObject({ start: 1.0, end: 1.4 });
    expect(words[3]!.text).toBe("fuck."); // the input is not changed
  });

  it("parses the list format and refuses an entry that is not one word", () => {
    const l = parseWordList("# comment\nfoo\n\nbar*  # trailing\n");
    expect([...l.exact]).toEqual(["foo"]);
    expect(l.prefixes).toEqual(["bar"]);
    expect(maskText("Barbaric foo food", l).text).toBe("B******* f** food");
    expect(() => parseWordList("two words")).toThrow(/"two words" is not one word/);
  });

  it("bleeps each listed word's span, a little wider, clamped and merged", () => {
    const words = [
      { start: 0, end: 0.2 },
      { start: 1, end: 1.3 },
      { start: 1.32, end: 1.6 },
      { start: 2.9, end: 3.05 },
    ];
    expect(bleepSpans(words, [0, 1, 2, 3], 3)).toEqual([
      { start: 0, end: expect.closeTo(0.26, 5) },
      { start: expect.closeTo(0.94, 5), end: expect.closeTo(1.66, 5) },
      { start: expect.closeTo(2.84, 5), end: 3 },
    ]);
    const f = bleepFilter([{ start: 1, end: 1.5 }], "aj", "ajb");
    expect(f).toContain("between(t,1.000,1.500)");
    expect(f).toContain("sine=frequency=1000");
    expect(f.endsWith("[ajb]")).toBe(true);
    expect(bleepFilter([], "aj", "ajb")).toBe("[aj]anull[ajb]");
  });
});

describe("emphasis", () => {
  const words = (text: string) => text.split(" ").map((t, i) => ({ text: t, start: i * 0.4, end: i * 0.4 + 0.35 }));

  it("marks numbers and the passage's key terms (in the title or said twice), not chat words", () => {
    const ws = words(
      "Most bad sourdough isn't about the recipe. It's about temperature. Keep " +
        "your sourdough at 24 degrees for twelve hours, really.",
    );
    expect(keyTerms(ws, "Sourdough is about temperature")).toEqual(["sourdough", "temperature"]);
    const marked = emphasize(ws, { title: "Sourdough is about temperature" })
      .filter((w) => w.emphasis)
      .map((w) => w.text);
    expect(marked).toEqual(["sourdough", "temperature.", "sourdough", "24", "twelve"]);
  });

  it("puts a symbol from the map after a key phrase once, before its punctuation", () => {
    const emoji = loadEmojiMap();
    expect(emoji.get("coffee")).toBe("☕");
    const ws = emphasize(words("Coffee first. Then more coffee."), { emoji });
    expect(ws.map((w) => w.text)).toEqual(["Coffee ☕", "first.", "Then", "more", "coffee."]);
  });

  it("draws emphasised words in the highlight colour, which a brand kit sets to its accent", () => {
    const style = brandStyle(loadStyles().styles.find((s) => s.id === "clean")!, {
      colours: { primary: "#FAFAFA", accent: "#00C8FF", background: "#101820" },
    });
    expect(style).toMatchObject({
      colour: "#FAFAFA",
      highlight: "#00C8FF",
      hook_background: "#101820",
      font: "DejaVu Sans",
      outline: 3,
    });
    const ass = buildAss(
      [
        { text: "only", start: 0, end: 0.4 },
        { text: "42", start: 0.4, end: 0.8, emphasis: true },
      ],
      {
        width: 1080,
        height: 1920,
        style,
        size: "medium",
        position: "bottom",
        highlight: false,
        duration: 1,
      },
    );
    expect(ass).toMatch(/,only \{\\1c&H00FFC800\}42\{\\1c&H00FAFAFA\}$/m);
    const boxed = brandStyle(loadStyles().styles.find((s) => s.id === "boxed")!, {
      colours: { primary: "#FAFAFA", accent: "#00C8FF", background: "#101820" },
      font: { key: "k", family: "Brand Sans", file_name: "b.ttf" },
    });
    expect(boxed).toMatchObject({ outline_colour: "#101820", box: true, font: "Brand Sans" });
    expect(assFontName("@Evil, Inc\nSans")).toBe("Evil  Inc Sans");
  });
});
