/**
 * fast-check arbitraries for values that fit an operation's JSON schema (the subset the registry
 * uses: object, string with enum/format/pattern/length, integer, number, boolean, array, anyOf,
 * const). Valid values get requests past validation into the handlers, where the mutations in
 * fuzz-mutate.ts then do their damage. Some fields get values from pools instead of from their
 * schema: a random `uri` would make the server resolve random names, and ids that exist reach
 * deeper than random uuids.
 */
import fc from "fast-check";

export type Schema = Record<string, any>;

/** Values that exist on the server under test, by the field or path parameter they fill. */
export interface FuzzPools {
  /** https links whose fetch fails at once (a closed loopback port) or that are refused before any fetch. */
  urls: string[];
  /** Known ids for a path, by a prefix of the operation's path (e.g. "/api/v1/clips/"). */
  ids: Record<string, string[]>;
  /** Signed tokens for /uploads/{token} and /files/{token}. */
  tokens: string[];
  styles: string[];
  /** An account the admin commands may change (never the fuzzing account: credit there would start live work). */
  sinkAccount: string;
  /** Pipelines POST /api/v1/runs may start: quick test ones. */
  pipelines: string[];
}

const MAX_LEN = 40;
const URL_FIELDS = new Set(["url", "source_url", "callback_url"]);

const fileNames = fc.constantFrom(
  "a.mp3",
  "talk.wav",
  "clip.mp4",
  "notes.txt",
  "x",
  ".mp3",
  "a.MP3",
  "a.mp3.exe",
  "../../etc/passwd.mp3",
  "con.wav",
);
const emails = fc.oneof(fc.emailAddress(), fc.constantFrom("a@b", "not-an-email", "x@example.com"));

/** A string by its schema; `name` is the field it fills, for the pools. */
function stringArb(s: Schema, name: string, pools: FuzzPools): fc.Arbitrary<string> {
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as string[]));
  if (URL_FIELDS.has(name) || s.format === "uri" || s.pattern === "^https://") return fc.constantFrom(...pools.urls);
  if (name === "email") return emails;
  if (name === "file_name") return fileNames;
  if (name === "style" && pools.styles.length)
    return fc.oneof(fc.constantFrom(...pools.styles), fc.string({ minLength: 1, maxLength: 60 }));
  if (s.format === "uuid") return fc.uuid();
  if (s.format === "date-time")
    return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString());
  if (typeof s.pattern === "string" && s.pattern.startsWith("^\\d+"))
    return fc.oneof(
      fc.nat({ max: 600 }).map(String),
      fc.double({ min: 0, max: 600, noNaN: true }).map((n) => n.toFixed(2)),
    );
  const minLength = s.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(s.maxLength ?? MAX_LEN, MAX_LEN));
  return fc.oneof(
    { arbitrary: fc.string({ minLength, maxLength }), weight: 3 },
    { arbitrary: fc.string({ minLength, maxLength, unit: "grapheme" }), weight: 1 },
  );
}

function numberArb(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + (integer ? 1 : 1e-9) : undefined);
  const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - (integer ? 1 : 1e-9) : undefined);
  // Small by default: ids like clip numbers are small, and the boundary mutation tries the huge ones.
  if (integer) return fc.integer({ min: min ?? 0, max: max ?? Math.max(min ?? 0, 0) + 20 });
  return fc.double({ min: min ?? -1e6, max: max ?? 1e6, noNaN: true, noDefaultInfinity: true });
}

/** Arguments of the ops admin commands (daemon/account/admin.ts), any subset, aimed at the sink account. */
const adminArgs = (pools: FuzzPools) =>
  fc.record(
    {
      email: emails,
      account: fc.oneof(fc.constant(pools.sinkAccount), fc.uuid()),
      mode: fc.constantFrom("test", "live", "other"),
      scopes: fc.constantFrom("clips.read", "clips.read,webhooks", "nope", ""),
      key_id: fc.uuid(),
      cents: fc.integer({ min: -100, max: 1000 }),
      credit_cents: fc.integer({ min: 0, max: 1000 }),
      expires_in_days: fc.integer({ min: -1, max: 400 }),
    },
    { requiredKeys: [] },
  );

/** A value that fits `s` (as far as this subset goes). */
export function valueArb(s: Schema | undefined, name: string, pools: FuzzPools, depth = 0): fc.Arbitrary<unknown> {
  if (!s || depth > 4) return fc.jsonValue({ maxDepth: 2 });
  if (name === "args") return adminArgs(pools);
  if (name === "pipeline")
    return fc.oneof(fc.constantFrom(...pools.pipelines), fc.string({ minLength: 1, maxLength: 20 }));
  if ("const" in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if (Array.isArray(s.anyOf)) return fc.oneof(...s.anyOf.map((x: Schema) => valueArb(x, name, pools, depth + 1)));
  const type = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (type.length > 1) return fc.oneof(...type.map((t: string) => valueArb({ ...s, type: t }, name, pools, depth + 1)));
  switch (type[0]) {
    case "string":
      return stringArb(s, name, pools);
    case "integer":
      return numberArb(s, true);
    case "number":
      return numberArb(s, false);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const items = valueArb(s.items, name, pools, depth + 1);
      const constraints = {
        minLength: s.minItems ?? 0,
        maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 5, 5)),
      };
      return s.uniqueItems
        ? fc.uniqueArray(items, { ...constraints, selector: (v) => JSON.stringify(v) })
        : fc.array(items, constraints);
    }
    case "object":
      return objectArb(s, pools, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectArb(s: Schema, pools: FuzzPools, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props: Record<string, Schema> = s.properties ?? {};
  if (Object.keys(props).length === 0) {
    // An open object (`input`, `set`, `args`): anything JSON.
    return s.additionalProperties === false
      ? fc.constant({})
      : fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
  }
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, inner] of Object.entries(props)) model[key] = valueArb(inner, key, pools, depth + 1);
  return fc.record(model, { requiredKeys: (s.required ?? []) as string[] }) as fc.Arbitrary<Record<string, unknown>>;
}

/** Every field path of a schema's object properties ("a", "a.b"), with the schema at that path. */
export function schemaFields(s: Schema | undefined, at = ""): Array<{ path: string; schema: Schema }> {
  if (!s?.properties) return [];
  const out: Array<{ path: string; schema: Schema }> = [];
  for (const [key, inner] of Object.entries(s.properties as Record<string, Schema>)) {
    const path = at ? `${at}.${key}` : key;
    out.push({ path, schema: inner }, ...schemaFields(inner, path));
  }
  return out;
}
