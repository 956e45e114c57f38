/**
 * Effective configuration: built-in defaults < user file (CLIPD_CONFIG) < env variables <
 * overrides. Keys, defaults, limits and env variable names all come from config/schema.ts; an
 * invalid config (a wrong value or an unknown key) stops start-up with a message naming the key.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { parse as parseYaml } from "yaml";
import { configDefaults, ConfigSchema, SECRET_KEYS, type Config } from "./schema.js";

export { configDefaults, ConfigSchema, type Config } from "./schema.js";

export class ConfigError extends Error {
  constructor(message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = "ConfigError";
  }
}

/** The repository (or installed package) root, found from this file's place in src or dist. */
export function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    try {
      readFileSync(path.join(dir, "package.json"));
      return dir;
    } catch {
      dir = path.dirname(dir);
    }
  }
  throw new Error("cannot find the clipd package root");
}

/** Configuration as read from YAML, the environment or overrides, before the schema checks it. */
type Tree = Record<string, unknown>;
/** The part of a config schema node the loader reads (config/schema.ts builds them). */
type SchemaNode = { type?: string; properties?: Record<string, SchemaNode>; "x-env"?: string; "x-env-empty"?: boolean };

function isObject(v: unknown): v is Tree {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

/** `over` laid onto `base`, mappings merged key by key; the answer has base's shape. */
export function mergeDeep<T extends object>(base: T, over: Tree): T {
  const out: Tree = { ...(base as Tree) };
  for (const [k, v] of Object.entries(over)) {
    const under = out[k];
    out[k] = isObject(v) && isObject(under) ? mergeDeep(under, v) : v;
  }
  return out as T;
}

function readYaml(file: string, what: string): Tree {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(`cannot read ${what} ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    const doc = parseYaml(text) ?? {};
    if (!isObject(doc)) throw new Error("the top level must be a mapping of keys");
    return doc;
  } catch (err) {
    throw new ConfigError(`${what} ${file} is not valid YAML: ${(err as Error).message}`, { cause: err });
  }
}

/** Every key with an env variable (`x-env` in the schema), as [dotted path, its schema]. */
export function envKeys(
  schema: SchemaNode = ConfigSchema as SchemaNode,
  prefix: string[] = [],
): Array<[string[], SchemaNode]> {
  return Object.entries(schema.properties ?? {}).flatMap(
    ([k, p]): Array<[string[], SchemaNode]> =>
      p["x-env"] ? [[[...prefix, k], p]] : p.type === "object" ? envKeys(p, [...prefix, k]) : [],
  );
}

// An empty variable is ignored (as if unset), except where the schema says `x-env-empty`
// (DATABASE_URL="" chooses the embedded database over a file's URL). A number that does not parse
// is kept as text, so validation names the key and the variable's value.
function fromEnv(env: NodeJS.ProcessEnv): Tree {
  const out: Tree = {};
  for (const [keys, p] of envKeys()) {
    const raw = env[p["x-env"]!];
    if (raw === undefined || (raw === "" && !p["x-env-empty"])) continue;
    let o = out;
    for (const k of keys.slice(0, -1)) o = (o[k] ??= {}) as Tree;
    const n = Number(raw);
    o[keys.at(-1)!] =
      p.type === "integer"
        ? Number.isInteger(n)
          ? n
          : raw
        : p.type === "number"
          ? Number.isFinite(n)
            ? n
            : raw
          : raw;
  }
  return out;
}

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** Overrides applied last (tests, `--set`). */
  overrides?: Tree;
}

export function loadConfig(opts: LoadConfigOptions = {}): Config {
  const env = opts.env ?? process.env;
  let cfg: Tree = configDefaults();
  if (env.CLIPD_CONFIG) cfg = mergeDeep(cfg, readYaml(path.resolve(env.CLIPD_CONFIG), "config file"));
  cfg = mergeDeep(cfg, fromEnv(env));
  if (opts.overrides) cfg = mergeDeep(cfg, opts.overrides);
  validate(cfg);
  cfg.data_dir = path.resolve(cfg.data_dir);
  if (cfg.pipelines?.ops_dir) cfg.pipelines.ops_dir = path.resolve(cfg.pipelines.ops_dir);
  return cfg as Config;
}

let compiled: ReturnType<Ajv["compile"]> | undefined;

function validate(cfg: Tree): asserts cfg is Tree & Config {
  // strict: false lets ajv pass over the schema's own annotations (x-env, x-default); verbose
  // gives each error its schema, whose known keys make the "did you mean" hint.
  const check = (compiled ??= new Ajv({ allErrors: true, strict: false, verbose: true }).compile(ConfigSchema));
  if (check(cfg)) return;
  const lines = (check.errors ?? []).map((e) => {
    const key = e.instancePath.replace(/^\//, "").replace(/\//g, ".");
    if (e.keyword === "additionalProperties") {
      const extra = String((e.params as { additionalProperty?: string }).additionalProperty);
      const near = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {}).find(
        (k) => editDistance(k, extra) <= 2,
      );
      const at = key ? `${key}.` : "";
      return `${at}${extra}: unknown key${near ? ` (did you mean ${at}${near}?)` : ""}`;
    }
    return `${key || "(top level)"}: ${e.message}`;
  });
  throw new ConfigError(`invalid config:\n  ${[...new Set(lines)].join("\n  ")}`);
}

/** Levenshtein distance, for the "did you mean" hint (keys are short, so the plain table is fine). */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** A copy safe to print: secrets and passwords inside URLs are masked. */
export function maskSecrets(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v));
  if (isObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSecrets(v, k)]));
  }
  if (typeof value === "string" && value && SECRET_KEYS.test(key)) {
    if (/^postgres(ql)?:\/\//.test(value)) return value.replace(/\/\/([^:/@]+):([^@]*)@/, "//$1:****@");
    return "****";
  }
  return value;
}
