/**
 * YAML pipelines. The whole set is loaded and checked at once: YAML syntax, the pipeline shape,
 * known stages, each step's `with:` against its stage's options schema, `retry`, `timeout` and
 * `when`. Every problem is collected with its file and line, so a broken set is refused as a whole
 * (at start and by `clipd pipelines lint`) instead of failing mid-job.
 *
 * The steps themselves are read and checked in pipeline-steps.ts; this file walks the folders and
 * files, and checks each file's top-level keys, name, `input:` and what each step needs.
 */
import { STATE_KEYS, unmetNeeds, type StateKey } from "./run-state.js";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { isMap, isSeq, LineCounter, parseDocument, type Document, type Node } from "yaml";
import { readSteps, type PipelineStep, type StepOptions } from "./pipeline-steps.js";

// The step types stay importable from here, where callers have always found them.
export type { PipelineStep, RetryPolicy } from "./pipeline-steps.js";

export interface Pipeline {
  name: string;
  description?: string;
  file: string;
  steps: PipelineStep[];
  on_failure: PipelineStep[];
  /** Run-state keys a run of this pipeline starts with (its `input:` list). */
  input: StateKey[];
}

export interface PipelineIssue {
  file: string;
  line: number;
  message: string;
}

export class PipelineError extends Error {
  constructor(readonly issues: PipelineIssue[]) {
    super(`pipelines have ${issues.length} problem(s):\n${formatIssues(issues)}`);
    this.name = "PipelineError";
  }
}

export function formatIssues(issues: PipelineIssue[]): string {
  return issues.map((i) => `  ${i.file}:${i.line}: ${i.message}`).join("\n");
}

export interface LoadPipelinesOptions extends StepOptions {
  dirs: string[];
  /** Shown in messages instead of absolute paths. */
  relativeTo?: string;
}

const TOP_KEYS = new Set(["name", "description", "input", "steps", "on_failure"]);

export function loadPipelines(opts: LoadPipelinesOptions): {
  pipelines: Map<string, Pipeline>;
  issues: PipelineIssue[];
} {
  const issues: PipelineIssue[] = [];
  const pipelines = new Map<string, Pipeline>();
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true });
  const validators = new Map<string, ValidateFunction>();
  for (const [name, stage] of opts.stages) {
    try {
      validators.set(name, ajv.compile(stage.options));
    } catch (err) {
      issues.push({
        file: `stage ${name}`,
        line: 0,
        message: `options schema does not compile: ${(err as Error).message}`,
      });
    }
  }
  for (const dir of opts.dirs) {
    if (!existsSync(dir)) {
      issues.push({ file: dir, line: 0, message: "pipelines folder does not exist" });
      continue;
    }
    for (const f of readdirSync(dir)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()) {
      const file = path.join(dir, f);
      const shown = opts.relativeTo ? path.relative(opts.relativeTo, file) || file : file;
      const p = loadOne(file, shown, opts, validators, issues);
      if (p) pipelines.set(p.name, p); // a later folder (ops) overrides an earlier one
    }
  }
  return { pipelines, issues };
}

function loadOne(
  file: string,
  shown: string,
  opts: LoadPipelinesOptions,
  validators: Map<string, ValidateFunction>,
  issues: PipelineIssue[],
): Pipeline | undefined {
  const lc = new LineCounter();
  const text = readFileSync(file, "utf8");
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false });
  const lineOf = (node: Node | null | undefined | unknown) => {
    const range = (node as Node | undefined)?.range;
    return range ? lc.linePos(range[0]).line : 1;
  };
  const add = (node: unknown, message: string) => issues.push({ file: shown, line: lineOf(node), message });
  if (doc.errors.length) {
    for (const e of doc.errors)
      issues.push({ file: shown, line: e.linePos?.[0]?.line ?? 1, message: `YAML: ${e.message.split("\n")[0]}` });
    return undefined;
  }
  const root = doc.contents;
  if (!isMap(root)) {
    add(root, "a pipeline file must be a mapping with name and steps");
    return undefined;
  }
  const before = issues.length;
  for (const pair of root.items) {
    // biome-ignore lint/suspicious/noExplicitAny: yaml nodes: a Scalar (with .value) or a plain value
    const key = String((pair.key as any)?.value ?? pair.key);
    if (!TOP_KEYS.has(key)) add(pair.key, `unknown key "${key}" (allowed: ${[...TOP_KEYS].join(", ")})`);
  }
  const fileBase = path.basename(file).replace(/\.ya?ml$/, "");
  const name = root.get("name");
  if (name !== undefined && (typeof name !== "string" || !/^[a-z][a-z0-9-]*$/.test(name))) {
    add(root.get("name", true), `name must be lower-case words joined by dashes`);
  }
  const input = readInput(root.get("input", true), add);
  const steps = readSteps(doc, ["steps"], lineOf, add, opts, validators, true);
  const onFailure = readSteps(doc, ["on_failure"], lineOf, add, opts, validators, false);
  checkNeeds(doc, input, opts, add, "steps");
  checkNeeds(doc, input, opts, add, "on_failure");
  if (issues.length > before) return undefined;
  return {
    name: typeof name === "string" ? name : fileBase,
    description: root.get("description") as string | undefined,
    file,
    steps,
    on_failure: onFailure,
    input,
  };
}

/** The pipeline's `input:` list: run-state keys its runs start with. */
function readInput(node: unknown, add: (node: unknown, msg: string) => void): StateKey[] {
  if (node === undefined) return [];
  // biome-ignore lint/suspicious/noExplicitAny: yaml nodes: a Scalar (with .value) or a plain value
  const keys = isSeq(node) ? node.items.map((i) => String((i as any)?.value ?? i)) : undefined;
  if (!keys) {
    add(node, `"input" must be a list of run-state keys (${STATE_KEYS.join(", ")})`);
    return [];
  }
  const bad = keys.filter((k) => !(STATE_KEYS as readonly string[]).includes(k));
  if (bad.length) add(node, `"input": unknown run-state key(s) ${bad.join(", ")} (known: ${STATE_KEYS.join(", ")})`);
  return keys.filter((k): k is StateKey => (STATE_KEYS as readonly string[]).includes(k));
}

/**
 * Each step's needs against what the input and earlier steps provide. On failure steps may run
 * after any step, so they count only on the input. A step with `when:` still needs its keys.
 */
function checkNeeds(
  doc: Document,
  input: StateKey[],
  opts: LoadPipelinesOptions,
  add: (node: unknown, msg: string) => void,
  at: string,
) {
  const seq = doc.getIn([at], true);
  if (!isSeq(seq)) return;
  const available = new Set<string>(input);
  // Read from the YAML itself, so a step refused for another reason keeps its place and line.
  seq.items.forEach((item, i) => {
    const name = isMap(item) ? item.get("stage") : undefined;
    const def = typeof name === "string" ? opts.stages.get(name) : undefined;
    if (!def) return;
    const missing = unmetNeeds(def.needs, available);
    if (missing.length)
      add(
        item,
        `${at}[${i}]: ${def.name} needs ${missing.join(", ")} in the run state, ` +
          `which no earlier step provides and "input" does not list`,
      );
    if (at === "steps") for (const k of def.provides ?? []) available.add(k);
  });
}

export function pipelineDirs(root: string, opsDir?: string): string[] {
  const dirs = [path.join(root, "pipelines")];
  if (opsDir) dirs.push(opsDir);
  return dirs;
}
