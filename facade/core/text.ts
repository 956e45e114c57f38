/**
 * Strings PostgreSQL cannot store: a NUL character (text columns refuse \u0000, JSON too) and a
 * lone UTF-16 surrogate (not Unicode, so not valid UTF-8). The operation core refuses them in
 * every string a caller sends (path, query, body, Idempotency-Key) before any handler runs, so
 * they answer 400 naming the field instead of reaching the database and failing as a 500.
 */

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g");

/** What is wrong with a string, or undefined when it can be stored. */
export function textFault(s: string): string | undefined {
  if (s.includes("\u0000")) return "contains a NUL character (\\u0000)";
  if (LONE_SURROGATE.test(s)) return "contains a lone UTF-16 surrogate, which is not valid Unicode";
  return undefined;
}

/**
 * The first string in `value` (keys included) that cannot be stored: its dotted field path and the
 * fault. Walked with a stack of its own, not by recursion: a body nested thousands of levels deep
 * must reach the schema's refusal, not overflow the call stack here (a 500).
 */
export function findTextFault(value: unknown, at = ""): { field: string; fault: string } | undefined {
  // Each entry keeps its key and its parent's entry; the dotted path is spelled out only for a fault
  // (building it for every level of a deep body would cost the square of the depth).
  type Step = { key: string; up: Step | undefined };
  const pathOf = (step: Step | undefined) => {
    const keys: string[] = [];
    for (let s = step; s; s = s.up) keys.push(s.key);
    return keys.reverse().reduce(join, at);
  };
  const todo: Array<[unknown, Step | undefined]> = [[value, undefined]];
  while (todo.length) {
    const [item, step] = todo.pop()!;
    if (typeof item === "string") {
      const fault = textFault(item);
      if (fault) return { field: pathOf(step), fault };
      continue;
    }
    if (!item || typeof item !== "object") continue;
    const entries = Array.isArray(item) ? item.map((v, i) => [String(i), v] as const) : Object.entries(item);
    // Pushed last to first, so the first field in document order is looked at (and named) first.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, inner] = entries[i]!;
      todo.push([inner, { key, up: step }]);
    }
    if (!Array.isArray(item)) {
      for (const [key] of entries) {
        const keyFault = textFault(key);
        // The key itself is named with its bad characters made visible, so the answer stays printable.
        if (keyFault)
          return {
            field: join(pathOf(step), key.replace(/\u0000/g, "\ufffd").replace(LONE_SURROGATES, "\ufffd")),
            fault: `has a name that ${keyFault}`,
          };
      }
    }
  }
  return undefined;
}

const join = (at: string, key: string) => (at ? `${at}.${key}` : key);
