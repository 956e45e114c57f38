/**
 * The helpers every block of the configuration schema is written with (schema.ts assembles the
 * blocks): a key with its default and environment variable, a key whose default the reading code
 * decides, and a block that refuses unknown keys.
 */
import { Type, type Static, type TProperties, type TSchema } from "@sinclair/typebox";

// A key with a default is required in `Config` (the defaults are always merged in); a key whose
// default is decided at run time by the code that reads it is optional, with an `x-default` note.
type KeyOpts = { env?: string; envEmpty?: boolean };

/** A key with its default; `env` names the variable that overrides it (`envEmpty`: even when empty). */
export function Key<T extends TSchema>(schema: T, value: Static<T>, description: string, opts: KeyOpts = {}): T {
  const env = opts.env ? { "x-env": opts.env, ...(opts.envEmpty ? { "x-env-empty": true } : {}) } : {};
  return { ...schema, default: value, description, ...env };
}

/** A key without a schema default: `note` says what the reading code uses when it is left out. */
export function Opt<T extends TSchema>(schema: T, note: string, description: string, opts: KeyOpts = {}) {
  return Type.Optional({ ...schema, "x-default": note, description, ...(opts.env ? { "x-env": opts.env } : {}) } as T);
}

/** A block of keys; unknown keys in it are refused. */
export const Block = <P extends TProperties>(description: string, props: P) =>
  Type.Object(props, { additionalProperties: false, description });

export const Duration = (o: object = {}) =>
  Type.Unsafe<string | number>({ type: ["string", "number"], pattern: "^[0-9]+(\\.[0-9]+)?(ms|s|m|h)?$", ...o });
export const Str = Type.String;
export const Int = Type.Integer;
export const Num = Type.Number;
export const Bool = Type.Boolean;

// The chat / speech endpoint keys shared by `openai` and `llm` (retries and timeouts are optional:
// `llm` falls back to `openai` key by key, then to its own defaults).
export const endpointTuning = (who: string, retries: string, timeout: string) => ({
  retries: Opt(
    Int({ minimum: 0, maximum: 20 }),
    retries,
    `Retries of a failed ${who} request (transient errors only).`,
  ),
  retry_min_ms: Opt(
    Int({ minimum: 0 }),
    "1000",
    `First retry delay of a ${who} request, milliseconds; doubles each time.`,
  ),
  timeout_ms: Opt(Int({ minimum: 1000 }), timeout, `Time a ${who} request may take, milliseconds.`),
});
