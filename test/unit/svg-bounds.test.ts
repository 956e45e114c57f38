// The SVG check reads values as librsvg reads them (issue 36): a blur's strength written as
// character references, a filter applied through a <style> sheet (also behind CSS escapes), and the
// three primitives whose cost grows with one number (feMorphology, feConvolveMatrix, feTurbulence)
// are refused like their plain forms; ordinary logos still pass.
import { describe, expect, it } from "vitest";
import { decodeRefs, SVG_LIMITS, svgProblem } from "../../daemon/render/svg-bounds.js";

const svg = (inner: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">${inner}</svg>`;
const blur = (dev: string) => svg(`<filter id="b"><feGaussianBlur stdDeviation="${dev}"/></filter>`);
const rects = (n: number, extra = "") =>
  Array.from({ length: n }, (_, i) => `<rect x="${i}" width="9" height="9"${extra}/>`).join("");

describe("svgProblem", () => {
  it("reads a blur's strength through character references", () => {
    expect(svgProblem(blur("3000"))?.limit).toBe("blur_deviation");
    for (const written of ["&#51;000", "&#x33;&#x30;00", "3&#48;&#48;0", " &#51;0 , 5"])
      expect(svgProblem(blur(written)), written).toMatchObject({ limit: "blur_deviation", max: 20 });
    expect(svgProblem(blur("&#49;0"))).toBeUndefined();
    expect(decodeRefs("a&amp;b&#x3c;&#62;&bogus;")).toBe("a&b<>&bogus;");
  });

  it("counts a filter set in a <style> sheet as applied to every element", () => {
    const filter = `<filter id="b"><feGaussianBlur stdDeviation="5"/></filter>`;
    for (const sheet of [
      "rect { filter: url(#b) }",
      "<![CDATA[ * { filter:url(#b) } ]]>",
      "rect { f&#105;lter: url(#b) }",
      "rect { \\66 ilter: url(#b) }",
      "rect{color:red;filter :url(#b)}",
    ]) {
      const p = svgProblem(svg(`<style>${sheet}</style>${filter}${rects(3)}`));
      expect(p, sheet).toMatchObject({ limit: "filtered_elements", max: SVG_LIMITS.filtered_elements });
      expect(p!.message).toContain("<style>");
    }
    // A sheet without filters, and filters on a few elements, pass.
    expect(svgProblem(svg(`<style>rect { fill: red }</style>${rects(20)}`))).toBeUndefined();
    expect(svgProblem(svg(`${filter}${rects(3, ' filter="url(#b)"')}`))).toBeUndefined();
    // The attribute form behind a character reference or a CSS escape is still one filtered element each.
    const hidden = rects(SVG_LIMITS.filtered_elements + 1, ' style="f&#105;lter:url(#b)"');
    expect(svgProblem(svg(`${filter}${hidden}`))?.limit).toBe("filtered_elements");
  });

  it("bounds feMorphology's radius, feConvolveMatrix's order and feTurbulence's octaves", () => {
    const prim = (p: string) => svg(`<filter id="f">${p}</filter><rect width="9" height="9" filter="url(#f)"/>`);
    expect(svgProblem(prim(`<feMorphology operator="dilate" radius="5000"/>`))?.limit).toBe("morphology_radius");
    expect(svgProblem(prim(`<feMorphology radius="3 &#57;999"/>`))?.limit).toBe("morphology_radius");
    expect(svgProblem(prim(`<feConvolveMatrix order="300" kernelMatrix="1"/>`))?.limit).toBe("convolve_order");
    expect(svgProblem(prim(`<feTurbulence baseFrequency="0.05" numOctaves="1000"/>`))?.limit).toBe(
      "turbulence_octaves",
    );
    // Ordinary values pass.
    expect(svgProblem(prim(`<feMorphology radius="2"/>`))).toBeUndefined();
    expect(svgProblem(prim(`<feConvolveMatrix order="3" kernelMatrix="0 1 0 1 -4 1 0 1 0"/>`))).toBeUndefined();
    expect(svgProblem(prim(`<feTurbulence baseFrequency="0.05" numOctaves="4"/>`))).toBeUndefined();
  });
});
