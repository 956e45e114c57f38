/**
 * `when:` conditions on pipeline steps. Deliberately tiny and safe (no eval): a path into the run
 * state, optionally negated, optionally compared with a JSON literal.
 *   when: source_url            -> truthy
 *   when: "!upload"             -> falsy
 *   when: options.render_top > 0
 *   when: media.kind == "video"
 */
const RE = /^\s*(!)?\s*([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)\s*(?:(==|!=|>=|<=|>|<)\s*(.+?))?\s*$/;

export type WhenFn = (state: Record<string, unknown>) => boolean;

export function compileWhen(expr: string): WhenFn {
  const m = RE.exec(expr);
  if (!m)
    throw new SyntaxError(
      `cannot read condition "${expr}" (use: path, !path, or path <op> value with op one of == != > >= < <=)`,
    );
  const [, not, pathStr, op, rhsRaw] = m;
  if (not && op) throw new SyntaxError(`condition "${expr}" mixes ! with a comparison`);
  let rhs: unknown;
  if (op) {
    try {
      rhs = JSON.parse(rhsRaw!);
    } catch {
      rhs = rhsRaw; // a bare word compares as a string
    }
  }
  const keys = pathStr!.split(".");
  const get = (state: Record<string, unknown>) =>
    keys.reduce<unknown>((o, k) => (o == null ? undefined : (o as Record<string, unknown>)[k]), state);
  return (state) => {
    const v = get(state);
    switch (op) {
      case undefined:
        return not ? !v : Boolean(v);
      case "==":
        return v === rhs;
      case "!=":
        return v !== rhs;
      case ">":
        return (v as number) > (rhs as number);
      case ">=":
        return (v as number) >= (rhs as number);
      case "<":
        return (v as number) < (rhs as number);
      default:
        return (v as number) <= (rhs as number);
    }
  };
}
