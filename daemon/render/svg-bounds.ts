/**
 * What an SVG may ask librsvg to do, checked on its text before it is drawn (issue 27): a 6 KB file
 * of nested `<use>` expands to millions of shapes, and a Gaussian blur with a huge deviation over a
 * huge filter region takes minutes. The checks read the element tree with a small tag scanner (no
 * entities: a DOCTYPE is refused before this runs) and bound what the drawing would cost:
 * elements, `<use>` elements, how deep uses nest, the shapes drawn once uses are expanded, filter
 * primitives, elements that apply a filter, and each blur's deviation. The child process's deadline
 * stays the backstop for whatever these miss.
 *
 * Values are read as librsvg reads them: character references (`&#51;000`) decoded in attribute
 * values and style sheets first, and CSS escapes (`\66ilter`) in style. A filter set in a `<style>`
 * sheet may reach every element, so the sheet counts as filtering all of them. Besides the blurs,
 * the three primitives whose cost grows with one number are bounded too: feMorphology's radius,
 * feConvolveMatrix's order and feTurbulence's octaves.
 */

export const SVG_LIMITS = {
  /** Elements written in the file. */
  elements: 4000,
  /** `<use>` elements written in the file. */
  use_elements: 300,
  /** A use that draws a use that draws a use: deeper than this is refused. */
  use_depth: 3,
  /** Elements drawn once every use is expanded. */
  drawn_elements: 20_000,
  /** `fe*` filter primitives in the file. */
  filter_primitives: 16,
  /** Elements with a `filter` attribute or style. */
  filtered_elements: 8,
  /** feGaussianBlur / feDropShadow stdDeviation, in user units. */
  blur_deviation: 20,
  /** feMorphology radius, in user units (each output pixel looks at a (2r+1)² window). */
  morphology_radius: 20,
  /** feConvolveMatrix order (an order of n reads n² pixels for each one). */
  convolve_order: 5,
  /** feTurbulence numOctaves (each octave is one more pass of noise over the region). */
  turbulence_octaves: 8,
} as const;

export type SvgLimitName = keyof typeof SVG_LIMITS;

/** The first limit an SVG passes, with what was found; undefined when it is within all of them. */
export interface SvgProblem {
  limit: SvgLimitName;
  max: number;
  found: number;
  message: string;
}

interface Node {
  name: string;
  attrs: string;
  children: Node[];
}

const XML_NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** Text with XML's character references (`&#49;`, `&#x31;`, `&amp;`) replaced as a parser would. */
export function decodeRefs(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|(amp|lt|gt|quot|apos));/gi, (whole, dec, hex, named) => {
    if (named) return XML_NAMED[named.toLowerCase()]!;
    const code = dec !== undefined ? Number(dec) : Number.parseInt(hex, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** CSS text with its escapes (`\66 ilter`, `\:`) replaced by the characters they stand for. */
const decodeCss = (css: string) =>
  css.replace(/\\([0-9a-f]{1,6})[ \t\n]?|\\(.)/gi, (whole, hex, ch) => {
    if (ch !== undefined) return ch;
    const code = Number.parseInt(hex, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });

const attr = (attrs: string, name: string): string | undefined => {
  const raw = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, "i")
    .exec(attrs)
    ?.slice(1)
    .find((v) => v !== undefined);
  return raw === undefined ? undefined : decodeRefs(raw);
};

/** The largest number in an attribute's list of numbers (0 when it has none). */
const largest = (value: string | undefined) =>
  Math.max(
    0,
    ...(value ?? "0")
      .trim()
      .split(/[\s,]+/)
      .map(Number)
      .filter((n) => Number.isFinite(n)),
  );

function parse(text: string): { root: Node; all: Node[] } {
  const root: Node = { name: "#root", attrs: "", children: [] };
  const stack = [root];
  const all: Node[] = [];
  const body = text.replace(/<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>/g, "");
  for (const m of body.matchAll(/<(\/?)([A-Za-z_][\w:.-]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>/g)) {
    const [, closing, name, attrs, selfClosing] = m as unknown as [string, string, string, string, string];
    if (closing) {
      const at = stack.map((n) => n.name).lastIndexOf(name);
      if (at > 0) stack.length = at;
      continue;
    }
    // Attribute values with their character references decoded, as librsvg reads them.
    const node: Node = { name: name.replace(/^.*:/, ""), attrs: decodeRefs(attrs), children: [] };
    stack.at(-1)!.children.push(node);
    all.push(node);
    if (!selfClosing) stack.push(node);
  }
  return { root, all };
}

const over = (limit: SvgLimitName, found: number, what: string): SvgProblem | undefined =>
  found > SVG_LIMITS[limit]
    ? {
        limit,
        max: SVG_LIMITS[limit],
        found,
        message: `${what} (${found}), more than the limit of ${SVG_LIMITS[limit]}`,
      }
    : undefined;

/** Checks an SVG's text against SVG_LIMITS. */
export function svgProblem(text: string): SvgProblem | undefined {
  const { root, all } = parse(text);
  const uses = all.filter((n) => n.name === "use");
  const prims = all.filter((n) => /^fe[A-Z]/.test(n.name));
  const filtered = all.filter((n) => /(?:^|[\s;"'])filter\s*[=:]/i.test(decodeCss(n.attrs)));
  // A filter set in a style sheet may apply to every element: it counts as filtering them all.
  const sheetFilters = styleSheets(text).some((css) => /(?:^|[\s;{])filter\s*:/i.test(css));
  const plain =
    over("elements", all.length, "the SVG has too many elements") ??
    over("use_elements", uses.length, "the SVG has too many <use> elements") ??
    over("filter_primitives", prims.length, "the SVG has too many filter primitives") ??
    over("filtered_elements", filtered.length, "the SVG applies filters to too many elements") ??
    (sheetFilters
      ? over(
          "filtered_elements",
          Math.max(all.length, SVG_LIMITS.filtered_elements + 1),
          "the SVG sets a filter in a <style> sheet, which may apply it to every element; set it on elements",
        )
      : undefined);
  if (plain) return plain;
  return primitiveProblem(prims) ?? useProblem(root, all);
}

/** The one number of each costly primitive, its attribute (with librsvg's default) and its limit. */
const COSTLY: Record<string, { attr: string; absent: string; limit: SvgLimitName; what: string }> = {
  feGaussianBlur: {
    attr: "stdDeviation",
    absent: "0",
    limit: "blur_deviation",
    what: "blurs with too large a stdDeviation",
  },
  feDropShadow: {
    attr: "stdDeviation",
    absent: "2",
    limit: "blur_deviation",
    what: "blurs with too large a stdDeviation",
  },
  feMorphology: {
    attr: "radius",
    absent: "0",
    limit: "morphology_radius",
    what: "has too large a feMorphology radius",
  },
  feConvolveMatrix: {
    attr: "order",
    absent: "3",
    limit: "convolve_order",
    what: "has too large a feConvolveMatrix order",
  },
  feTurbulence: {
    attr: "numOctaves",
    absent: "1",
    limit: "turbulence_octaves",
    what: "has too many feTurbulence octaves",
  },
};

/** Each costly primitive's one number against its limit: blurs, morphology, convolution, turbulence. */
function primitiveProblem(prims: Node[]): SvgProblem | undefined {
  for (const p of prims) {
    const c = COSTLY[p.name];
    const problem = c && over(c.limit, largest(attr(p.attrs, c.attr) ?? c.absent), `the SVG ${c.what}`);
    if (problem) return problem;
  }
  return undefined;
}

/** The text of every <style> element, character references and CSS escapes decoded. */
function styleSheets(text: string): string[] {
  return [...text.matchAll(/<(?:[\w.-]+:)?style\b[^>]*>([\s\S]*?)<\/(?:[\w.-]+:)?style\s*>/gi)].map((m) => {
    // A CDATA section's text is taken as written; outside one, references are decoded.
    const parts = m[1]!.split(/(<!\[CDATA\[[\s\S]*?\]\]>)/);
    const css = parts.map((p) => (p.startsWith("<![CDATA[") ? p.slice(9, -3) : decodeRefs(p))).join("");
    return decodeCss(css.replace(/\/\*[\s\S]*?\*\//g, ""));
  });
}

/** Depth of nested uses and the count of drawn elements, each use expanded where it stands. */
function useProblem(root: Node, all: Node[]): SvgProblem | undefined {
  const byId = new Map<string, Node>();
  for (const n of all) {
    const id = attr(n.attrs, "id");
    if (id && !byId.has(id)) byId.set(id, n);
  }
  const target = (n: Node) => {
    const ref = attr(n.attrs, "xlink:href") ?? attr(n.attrs, "href");
    return ref?.startsWith("#") ? byId.get(ref.slice(1)) : undefined;
  };
  const memo = new Map<Node, { drawn: number; depth: number }>();
  const visiting = new Set<Node>();
  // A use that reaches itself never ends: librsvg refuses it too, and so does this, as too deep.
  const measure = (n: Node): { drawn: number; depth: number } => {
    const known = memo.get(n);
    if (known) return known;
    if (visiting.has(n)) return { drawn: Infinity, depth: Infinity };
    visiting.add(n);
    let drawn = 1;
    let depth = 0;
    for (const c of n.children) {
      const m = measure(c);
      drawn += m.drawn;
      depth = Math.max(depth, m.depth);
    }
    const t = n.name === "use" ? target(n) : undefined;
    if (t) {
      const m = measure(t);
      drawn += m.drawn;
      depth = Math.max(depth, m.depth + 1);
    }
    visiting.delete(n);
    const result = { drawn: Math.min(drawn, Number.MAX_SAFE_INTEGER), depth };
    memo.set(n, result);
    return result;
  };
  const whole = measure(root);
  const depth = Number.isFinite(whole.depth) ? whole.depth : SVG_LIMITS.use_depth + 1;
  return (
    over("use_depth", depth, "the SVG nests <use> elements too deeply") ??
    over(
      "drawn_elements",
      Number.isFinite(whole.drawn) ? whole.drawn - 1 : Number.MAX_SAFE_INTEGER,
      "the SVG draws too many elements once its <use> elements are expanded",
    )
  );
}
