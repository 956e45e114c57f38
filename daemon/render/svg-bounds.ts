/**
 * What an SVG may ask librsvg to do, checked on its text before it is drawn (issue 27): a 6 KB file
 * of nested `<use>` expands to millions of shapes, and a Gaussian blur with a huge deviation over a
 * huge filter region takes minutes. The checks read the element tree with a small tag scanner (no
 * entities: a DOCTYPE is refused before this runs) and bound what the drawing would cost:
 * elements, `<use>` elements, how deep uses nest, the shapes drawn once uses are expanded, filter
 * primitives, elements that apply a filter, and each blur's deviation. The child process's deadline
 * stays the backstop for whatever these miss.
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

const attr = (attrs: string, name: string): string | undefined =>
  new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, "i")
    .exec(attrs)
    ?.slice(1)
    .find((v) => v !== undefined);

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
    const node: Node = { name: name.replace(/^.*:/, ""), attrs, children: [] };
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
  const filtered = all.filter((n) => /(?:^|[\s;"'])filter\s*[=:]/i.test(n.attrs));
  const plain =
    over("elements", all.length, "the SVG has too many elements") ??
    over("use_elements", uses.length, "the SVG has too many <use> elements") ??
    over("filter_primitives", prims.length, "the SVG has too many filter primitives") ??
    over("filtered_elements", filtered.length, "the SVG applies filters to too many elements");
  if (plain) return plain;
  for (const p of prims.filter((n) => n.name === "feGaussianBlur" || n.name === "feDropShadow")) {
    const dev = Math.max(
      0,
      ...(attr(p.attrs, "stdDeviation") ?? "0")
        .split(/[\s,]+/)
        .map(Number)
        .filter(isFinite),
    );
    const problem = over("blur_deviation", dev, "the SVG blurs with too large a stdDeviation");
    if (problem) return problem;
  }
  return useProblem(root, all);
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
