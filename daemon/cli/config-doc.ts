/**
 * `clipd config describe [--markdown]`: every config key with its type, default, env variable and
 * meaning, made from config/schema.ts (the one place they are written). docs/configuration.md
 * carries the markdown table between `<!-- config -->` and `<!-- /config -->`, and
 * test/unit/config-doc.test.ts fails when it drifts from this output (CLIPD_UPDATE_DOCS=1 rewrites it).
 * Only schema defaults are shown, never the effective values, so no secret can leak here.
 */
import { ConfigSchema, SECRET_KEYS } from "../../config/schema.js";
import { UsageError } from "./args.js";
import { mdCell, mdCode, typeColumn } from "./options-doc.js";

// biome-ignore lint/suspicious/noExplicitAny: a config schema node, read for its doc keywords
type Prop = Record<string, any>;

export interface ConfigRow {
  /** Dotted path; `[]` marks the items of a list (watch.folders[].path). */
  key: string;
  type: string;
  default: string;
  env: string;
  description: string;
}

/** The default column: the schema default (masked for a secret key that had one), else the run-time note. */
function defaultOf(key: string, p: Prop, required: boolean): string {
  // An empty string is shown as `""` (an empty code span would not render).
  if (p.default !== undefined)
    return SECRET_KEYS.test(key) && p.default !== "" ? "(secret)" : mdCode(p.default === "" ? '""' : p.default);
  if (typeof p["x-default"] === "string") return p["x-default"];
  return required ? "required" : "—";
}

/** One row per leaf key, in schema order; blocks are walked into, lists of objects give their items' keys too. */
export function configRows(schema: Prop = ConfigSchema, prefix = ""): ConfigRow[] {
  const required = new Set<string>(schema.required ?? []);
  return Object.entries((schema.properties ?? {}) as Record<string, Prop>).flatMap(([k, p]) => {
    const key = prefix + k;
    if (p.type === "object" && p.properties && p.default === undefined) return configRows(p, key + ".");
    const row: ConfigRow = {
      key,
      type: typeColumn(p),
      default: defaultOf(k, p, required.has(k)),
      env: p["x-env"] ?? "",
      description: p.description ?? "",
    };
    const items = p.type === "array" && p.items?.type === "object" ? configRows(p.items, key + "[].") : [];
    return [row, ...items];
  });
}

/** The config keys as a Markdown table. */
export function configMarkdown(): string {
  const rows = configRows().map(
    (r) =>
      `| \`${r.key}\` | ${mdCell(r.type)} | ${mdCell(r.default)} | ${r.env ? "`" + r.env + "`" : ""} ` +
      `| ${mdCell(r.description)} |`,
  );
  return ["| key | type | default | env | meaning |", "|---|---|---|---|---|", ...rows].join("\n") + "\n";
}

/** The config keys as plain lines for a terminal. */
export function configText(): string {
  const rows = configRows();
  const w = Math.max(...rows.map((r) => r.key.length));
  const plain = (s: string) => s.replace(/`/g, "");
  return (
    rows
      .map(
        (r) =>
          `${r.key.padEnd(w)}  ${plain(r.type)}; default ${plain(r.default)}${r.env ? `; env ${r.env}` : ""}\n` +
          `${" ".repeat(w + 2)}${r.description}`,
      )
      .join("\n") + "\n"
  );
}

const MARKERS = /<!-- config -->\n[\s\S]*?<!-- \/config -->/g;

/** The document with its `<!-- config -->` … `<!-- /config -->` block filled from the schema. */
export function fillConfigTable(doc: string): string {
  return doc.replace(MARKERS, () => `<!-- config -->\n${configMarkdown()}<!-- /config -->`);
}

/** `clipd config describe [--markdown]`. */
export function cmdConfigDescribe(args: string[], values: { markdown?: boolean }): void {
  if (args.length) throw new UsageError("usage: clipd config describe [--markdown]");
  process.stdout.write(values.markdown ? configMarkdown() : configText());
}
