/**
 * A pipeline's steps as read from its YAML (`steps:` and `on_failure:`): each step's keys, its
 * stage, `with:` against the stage's options schema, `retry`, `timeout` and `when`, every problem
 * added with the node it is about so the caller can give its line. Kept apart from pipelines.ts,
 * which walks the folders and files, because a step's checks are the bulk of the loading.
 */
import type { ValidateFunction } from "ajv";
import { isMap, isSeq, type Document } from "yaml";
import { toSeconds } from "./duration.js";
import type { StageDefinition } from "./stage.js";
import { compileWhen } from "./when.js";

export interface RetryPolicy {
  limit: number;
  backoff: boolean;
  /** Seconds. */
  delay: number;
}

export interface PipelineStep {
  stage: string;
  with: Record<string, unknown>;
  retry: RetryPolicy;
  /** Seconds. */
  timeout: number;
  when?: string;
}

/** What reading steps needs of the load options: the stages and the defaults for retry and timeout. */
export interface StepOptions {
  stages: Map<string, StageDefinition>;
  defaults: { retry: { limit?: number; backoff?: boolean; delay?: string | number }; timeout: string | number };
}

const STEP_KEYS = new Set(["stage", "with", "retry", "timeout", "when"]);

export function readSteps(
  doc: Document,
  at: string[],
  lineOf: (n: unknown) => number,
  add: (node: unknown, msg: string) => void,
  opts: StepOptions,
  validators: Map<string, ValidateFunction>,
  required: boolean,
): PipelineStep[] {
  const seq = doc.getIn(at, true);
  if (seq === undefined) {
    if (required) add(doc.contents, `"${at.join(".")}" is required: a list of steps`);
    return [];
  }
  if (!isSeq(seq)) {
    add(seq, `"${at.join(".")}" must be a list of steps`);
    return [];
  }
  if (required && seq.items.length === 0) add(seq, `"${at.join(".")}" has no steps`);
  const out: PipelineStep[] = [];
  seq.items.forEach((item, i) => {
    const where = `${at.join(".")}[${i}]`;
    if (!isMap(item)) {
      add(item, `${where} must be a mapping with at least "stage"`);
      return;
    }
    for (const pair of item.items) {
      // biome-ignore lint/suspicious/noExplicitAny: yaml nodes: a Scalar (with .value) or a plain value
      const key = String((pair.key as any)?.value ?? pair.key);
      if (!STEP_KEYS.has(key)) add(pair.key, `${where}: unknown key "${key}" (allowed: ${[...STEP_KEYS].join(", ")})`);
    }
    const stage = item.get("stage");
    if (typeof stage !== "string") {
      add(item, `${where}: "stage" is required`);
      return;
    }
    const validate = validators.get(stage);
    if (!validate) {
      add(
        item.get("stage", true),
        `${where}: unknown stage "${stage}" (known: ${[...opts.stages.keys()].sort().join(", ")})`,
      );
      return;
    }
    const withNode = item.get("with", true);
    // biome-ignore lint/suspicious/noExplicitAny: yaml nodes: a Scalar (with .value) or a plain value
    const withValue = (withNode === undefined ? {} : ((item.toJS(doc) as any).with ?? {})) as Record<string, unknown>;
    if (typeof withValue !== "object" || Array.isArray(withValue)) {
      add(withNode, `${where}.with must be a mapping of options`);
      return;
    }
    if (!validate(withValue)) {
      for (const e of validate.errors ?? []) {
        const field =
          e.keyword === "additionalProperties"
            ? (e.params as { additionalProperty?: string }).additionalProperty
            : e.instancePath.replace(/^\//, "").replace(/\//g, ".");
        const node = field && isMap(withNode) ? (withNode.get(field.split(".")[0], true) ?? withNode) : withNode;
        const msg =
          e.keyword === "additionalProperties"
            ? `unknown option "${field}" for stage ${stage}`
            : `option "${field}" ${e.message}`;
        add(node ?? item, `${where}.with: ${msg}`);
      }
    }
    // biome-ignore lint/suspicious/noExplicitAny: yaml nodes: a Scalar (with .value) or a plain value
    const retryRaw = ((item.toJS(doc) as any).retry ?? {}) as Record<string, unknown>;
    const retry = readRetry(retryRaw, opts.defaults.retry, (m) =>
      add(item.get("retry", true) ?? item, `${where}.retry: ${m}`),
    );
    let timeout = 3600;
    try {
      timeout = toSeconds((item.get("timeout") as string | number | undefined) ?? opts.defaults.timeout);
      if (timeout <= 0) throw new RangeError("timeout must be above zero");
    } catch (err) {
      add(item.get("timeout", true), `${where}.timeout: ${(err as Error).message}`);
    }
    const when = item.get("when");
    if (when !== undefined) {
      try {
        compileWhen(String(when));
      } catch (err) {
        add(item.get("when", true), `${where}.when: ${(err as Error).message}`);
      }
    }
    out.push({ stage, with: withValue, retry, timeout, when: when === undefined ? undefined : String(when) });
  });
  return out;
}

function readRetry(
  raw: Record<string, unknown>,
  defaults: StepOptions["defaults"]["retry"],
  fail: (m: string) => void,
): RetryPolicy {
  const unknown = Object.keys(raw).filter((k) => !["limit", "backoff", "delay"].includes(k));
  if (unknown.length) fail(`unknown key(s) ${unknown.join(", ")} (allowed: limit, backoff, delay)`);
  const limit = raw.limit ?? defaults.limit ?? 2;
  if (!Number.isInteger(limit) || (limit as number) < 0 || (limit as number) > 100)
    fail("limit must be a whole number from 0 to 100");
  const backoff = raw.backoff ?? defaults.backoff ?? false;
  if (typeof backoff !== "boolean") fail("backoff must be true or false");
  let delay = 0;
  try {
    delay = toSeconds((raw.delay ?? defaults.delay ?? 0) as string | number);
  } catch (err) {
    fail(`delay: ${(err as Error).message}`);
  }
  return { limit: Number(limit), backoff: Boolean(backoff), delay };
}
