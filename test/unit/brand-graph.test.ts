// The brand's part of the one-pass graph, as text: card lengths kept to 1–2 s, what is drawn with
// and without the kit's files, and which kit a restyle draws (the run's over the plan's). The
// pixels are checked by test/integration/aspect-ratios.test.ts.
import { describe, expect, it } from "vitest";
import { brandTail, cardTimes, withRunBrand, type PlanBrand } from "../../daemon/render/brand-graph.js";
import { planDuration } from "../../daemon/render/clip-graph.js";
import type { BrandSnapshot } from "../../daemon/render/brand.js";

const colours = { primary: "#ffffff", accent: "#ffcc00", background: "#112233" };
const kit: PlanBrand = {
  colours,
  logo: { key: "brand/logo.png", corner: "bottom-left", size: 0.2, opacity: 0.5 },
  intro: { text: "Hello", seconds: 5, order: "card_first" },
  outro: { text: "  ", seconds: 1 },
};

describe("brand graph", () => {
  it("keeps cards to 1–2 s, leaves out a card with no text, and counts them in the clip's length", () => {
    expect(cardTimes(kit)).toEqual({ before: 2, after: 0 });
    expect(cardTimes({ colours, intro: { text: "x", seconds: 0.2, order: "card_first" } })).toEqual({
      before: 1,
      after: 0,
    });
    // Hook first (the default, issue 39): the intro plays after the clip, before the outro.
    expect(cardTimes({ colours, intro: { text: "x", seconds: 1.5 }, outro: { text: "y", seconds: 1 } })).toEqual({
      before: 0,
      after: 2.5,
    });
    expect(cardTimes(undefined)).toEqual({ before: 0, after: 0 });
    expect(planDuration({ pieces: [{ start: 10, end: 14.5 }], brand: kit })).toBe(6.5);
  });

  it("overlays the logo only with its file, and joins the intro before the captioned clip", () => {
    const parts: string[] = [];
    const out = brandTail(parts, {
      v: "vb",
      a: "aj",
      width: 1080,
      height: 1080,
      fps: 30,
      brand: kit,
      files: { logo: "logo.png", intro: ["intro-0.txt"] },
      logoInput: 3,
    });
    const graph = parts.join(";");
    expect(out).toEqual({ v: "vbrand", a: "abrand" });
    expect(graph).toContain("[3:v]scale=216:-2,format=rgba,colorchannelmixer=aa=0.50[logo]");
    expect(graph).toContain("overlay=x=43:y=H-h-43");
    expect(graph).toContain("color=c=#112233:s=1080x1080:r=30:d=2.000");
    expect(graph).toContain("textfile=intro-0.txt:expansion=none");
    expect(graph).toMatch(/\[introv\]\[introa\]\[vmain\]\[amain\]concat=n=2:v=1:a=1\[vbrand\]\[abrand\]$/);

    const bare: string[] = [];
    expect(
      brandTail(bare, {
        v: "vb",
        a: "aj",
        width: 1080,
        height: 1920,
        fps: 30,
        brand: { colours, logo: kit.logo },
        files: {},
      }),
    ).toEqual({ v: "vb", a: "aj" });
    expect(bare).toEqual([]);
  });

  it("draws the run's kit over the plan's when the run has one", () => {
    const plan = { pieces: [], brand: kit };
    const now: BrandSnapshot = {
      id: "k",
      name: "k",
      colours: { ...colours, background: "#445566" },
      outro: { text: "Bye", seconds: 1 },
    };
    expect(withRunBrand(plan, now)!.brand).toEqual({ colours: now.colours, outro: now.outro });
    expect(withRunBrand(plan, undefined)).toBe(plan);
    expect(withRunBrand(undefined, now)).toBeUndefined();
  });
});
