/**
 * The stage contract.
 *
 * A stage is one unit of work in a pipeline: it takes the run's accumulated state as `input`, its
 * validated `with:` options on `ctx.options`, and returns a JSON-serialisable object that is merged
 * into the state seen by the following steps. Guarantees the runner gives a stage:
 * - `ctx.options` has already passed the stage's own JSON Schema (checked when pipelines load).
 * - `ctx.workdir` is a fresh, private folder for this attempt; it is removed afterwards.
 * - A stage may run more than once for the same step (a crash or timeout retries it), so a stage
 *   must be safe to repeat: write to storage keys derived from `ctx.runId`, never append.
 * - A stage never sees the queue. It reports failure by throwing: a `StageError` with
 *   `retryable: false` fails the run at once with its `code`; anything else is retried while the
 *   step's retry budget lasts.
 */
import type { StateKey, StateNeed } from "./run-state.js";
import { Type, type Static, type TObject, type TOptional, type TProperties, type TSchema } from "@sinclair/typebox";
import type { Logger } from "pino";
import type { Storage } from "../storage/storage.js";

/** A JSON Schema object, as ajv accepts it. */
export type JsonSchema = Record<string, unknown>;

// A stage's options are written once, as a TypeBox schema (plain JSON Schema at run time, so ajv
// compiles it as before): names, types, limits, defaults and descriptions. The TypeScript type of
// the options, `clipd pipelines describe` and the option tables in docs/ all come from it.

declare const HAS_DEFAULT: unique symbol;
/** An optional option with a schema default: the `with:` block may leave it out, run() always has it. */
export type TDefaulted<T extends TSchema> = TOptional<T> & { readonly [HAS_DEFAULT]: true };

/**
 * Marks an option optional with a default; the runner fills it in (ajv `useDefaults`), so does {@link resolveOptions}.
 */
export function Defaulted<T extends TSchema>(schema: T, value: Static<T>): TDefaulted<T> {
  return Type.Optional({ ...schema, default: value } as T) as TDefaulted<T>;
}

/**
 * A string option with a fixed set of values, as `{ type: "string", enum }` (TypeBox's own union of
 * literals would be an `anyOf`, with other validation messages).
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...options });
}

type _DefaultedKeys<P extends TProperties> = {
  [K in keyof P]: P[K] extends { readonly [HAS_DEFAULT]: true } ? K : never;
}[keyof P];
type _Flat<T> = { [K in keyof T]: T[K] } & {};

/** What run() sees in `ctx.options`: the `with:` block with every option that has a default filled in. */
export type StageOptions<S extends TObject> = _Flat<
  Omit<Static<S>, _DefaultedKeys<S["properties"]>> &
    Required<Pick<Static<S>, _DefaultedKeys<S["properties"]> & keyof Static<S>>>
>;

/** The `with:` block as written: every option with a default may be left out. */
export type StageWith<S extends TObject> = Static<S>;

/**
 * The options with the schema's defaults filled in, as the runner's ajv `useDefaults` does, for
 * callers that run a stage without the runner (tests, benches). The given object is not changed.
 */
export function resolveOptions<S extends TObject>(schema: S, given: unknown): StageOptions<S> {
  const out: Record<string, unknown> = { ...((given ?? {}) as Record<string, unknown>) };
  for (const [k, p] of Object.entries(schema.properties)) {
    if (out[k] === undefined && (p as { default?: unknown }).default !== undefined)
      out[k] = structuredClone((p as { default?: unknown }).default);
  }
  return out as StageOptions<S>;
}

export interface StageContext<O = Record<string, unknown>> {
  /** Aborted when the step times out, the run is cancelled or the daemon shuts down past its grace. */
  signal: AbortSignal;
  log: Logger;
  /**
   * Reports progress within this step, 0–100, with an optional estimate of the seconds the step
   * still needs. Cheap to call often; writes are throttled.
   */
  progress(percent: number, note?: string, etaSeconds?: number): void;
  /** A private scratch folder for this attempt. */
  workdir: string;
  storage: Storage;
  runId: string;
  stepId: string;
  pipeline: string;
  options: O;
  /** The effective config (read-only), for stages that need service settings. */
  // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
  config: Readonly<Record<string, any>>;
}

// biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
export type StageInput = Record<string, any>;
// biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
export type StageOutput = Record<string, any>;

export type { RunStateShape, StateKey, StateNeed } from "./run-state.js";

// biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
export interface StageDefinition<O = any> {
  name: string;
  summary: string;
  /** JSON Schema for the step's `with:` block. Single source for validation, `describe` and docs. */
  options: JsonSchema;
  /** Run-state keys this stage reads (daemon/engine/run-state.ts); `pipelines lint` checks them. */
  needs?: readonly StateNeed[];
  /** Run-state keys this stage adds for the steps after it. */
  provides?: readonly StateKey[];
  run(input: StageInput, ctx: StageContext<O>): Promise<StageOutput>;
}

// biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
export function defineStage<O = any>(def: StageDefinition<O>): StageDefinition<O> {
  if (!/^[a-z][a-z0-9-]*$/.test(def.name)) {
    throw new TypeError(`stage name "${def.name}" must be lower-case words joined by dashes`);
  }
  if (typeof def.run !== "function") throw new TypeError(`stage "${def.name}" has no run() function`);
  return def;
}

/** A failure a stage reports on purpose, with a user-facing code. */
export class StageError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  readonly details?: Record<string, unknown>;
  constructor(
    code: string,
    message: string,
    opts: { retryable?: boolean; cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = "StageError";
    this.code = code;
    this.retryable = opts.retryable ?? false;
    this.details = opts.details;
  }
}

export function isStageDefinition(value: unknown): value is StageDefinition {
  const v = value as StageDefinition | undefined;
  return !!v && typeof v.name === "string" && typeof v.run === "function" && typeof v.options === "object";
}

/** True for a StageError from any copy of this contract (a plugin package may bundle its own). */
export function isStageError(err: unknown): err is StageError {
  if (err instanceof StageError) return true;
  const e = err as { name?: unknown; code?: unknown; retryable?: unknown } | undefined;
  return !!e && e.name === "StageError" && typeof e.code === "string" && typeof e.retryable === "boolean";
}
