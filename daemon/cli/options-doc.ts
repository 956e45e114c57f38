/**
 * A stage's options table, made from its options schema (the one place option names, limits,
 * defaults and descriptions are written): `clipd pipelines describe <stage> --markdown` prints it,
 * and the docs carry it between `<!-- options:<stage> -->` and `<!-- /options -->` markers, which
 * test/unit/options-doc.test.ts regenerates so the docs cannot drift from the code.
 */
import type { StageDefinition } from "../engine/stage.js";

// biome-ignore lint/suspicious/noExplicitAny: a stage options schema node, read for its doc keywords
type Prop = Record<string, any>;

const _code = (v: unknown) => "`" + (typeof v === "string" ? v : JSON.stringify(v)) + "`";
const _cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n+/g, " ");

/** The type column: enum values, or the type with its limits (also used by config-doc.ts). */
function _type(p: Prop): string {
  if (Array.isArray(p.enum)) return p.enum.map(_code).join(", ");
  if (Array.isArray(p.anyOf)) return p.anyOf.map(_type).join(" or ");
  const t =
    p.type === "array"
      ? `list of ${p.items ? _type(p.items) : "any"}`
      : Array.isArray(p.type)
        ? p.type.join(" or ")
        : String(p.type ?? "any");
  const lo = p.minimum ?? p.exclusiveMinimum;
  const hi = p.maximum ?? p.exclusiveMaximum;
  const range =
    lo !== undefined && hi !== undefined
      ? `${p.exclusiveMinimum !== undefined ? ">" : ""}${lo}–${hi}`
      : lo !== undefined
        ? `${p.exclusiveMinimum !== undefined ? ">" : "≥"} ${lo}`
        : hi !== undefined
          ? `≤ ${hi}`
          : "";
  const extra = [range, p.multipleOf ? `multiple of ${p.multipleOf}` : "", p.maxLength ? `≤ ${p.maxLength} chars` : ""]
    .filter(Boolean)
    .join(", ");
  return extra ? `${t} (${extra})` : t;
}

/** The default column: the schema default, else the `x-default` note of a default decided at run time. */
function _default(p: Prop, required: boolean): string {
  if (p.default !== undefined) return _code(p.default);
  if (typeof p["x-default"] === "string") return p["x-default"];
  return required ? "required" : "—";
}

/** The options of one stage as a Markdown table. */
export function optionsMarkdown(stage: Pick<StageDefinition, "name" | "options">): string {
  const props = ((stage.options as Prop).properties ?? {}) as Record<string, Prop>;
  const required = new Set<string>((stage.options as Prop).required ?? []);
  const rows = Object.entries(props).map(
    ([k, p]) =>
      `| \`${k}\` | ${_cell(_type(p))} | ${_cell(_default(p, required.has(k)))} | ${_cell(p.description ?? "")} |`,
  );
  if (!rows.length) return `\`${stage.name}\` takes no options.\n`;
  return ["| option | type | default | meaning |", "|---|---|---|---|", ...rows].join("\n") + "\n";
}

const MARKERS = /<!-- options:([a-z][a-z0-9-]*) -->\n[\s\S]*?<!-- \/options -->/g;

/**
 * The document with every `<!-- options:<stage> -->` … `<!-- /options -->` block filled from the
 * stages' schemas. Throws for a marker naming no stage.
 */
export function fillOptionTables(
  doc: string,
  stages: ReadonlyMap<string, Pick<StageDefinition, "name" | "options">>,
): string {
  return doc.replace(MARKERS, (_all, name: string) => {
    const stage = stages.get(name);
    if (!stage) throw new Error(`options marker names an unknown stage "${name}"`);
    return `<!-- options:${name} -->\n${optionsMarkdown(stage)}<!-- /options -->`;
  });
}

// The config table (config-doc.ts) shares the cell, code and type columns.
export { _cell as mdCell, _code as mdCode, _type as typeColumn };
