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

/** The first string in `value` (keys included) that cannot be stored: its dotted field path and the fault. */
export function findTextFault(value: unknown, at = ""): { field: string; fault: string } | undefined {
  if (typeof value === "string") {
    const fault = textFault(value);
    return fault ? { field: at, fault } : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findTextFault(value[i], join(at, String(i)));
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      const keyFault = textFault(key);
      // The key itself is named with its bad characters made visible, so the answer stays printable.
      if (keyFault) return { field: join(at, key.replace(/\u0000/g, "\ufffd").replace(LONE_SURROGATES, "\ufffd")), fault: `has a name that ${keyFault}` };
      const found = findTextFault(inner, join(at, key));
      if (found) return found;
    }
  }
  return undefined;
}

const join = (at: string, key: string) => (at ? `${at}.${key}` : key);
