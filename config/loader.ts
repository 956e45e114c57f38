/**
 * Effective configuration: built-in defaults (config/default.yaml) < user file (CLIPD_CONFIG) <
 * env variables. The result is checked against config/schema.json; an invalid config stops
 * start-up with a message naming the key.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { parse as parseYaml } from "yaml";

export type Config = {
  data_dir: string;
  database_url: string;
  server: { port: number; host: string; public_url: string; ops_token: string; signing_secret: string; max_json_bytes: number };
  log: { level: string; pretty: "auto" | boolean };
  api: { rate_limit: { requests: number; window_seconds: number } };
  queue: {
    concurrency: number;
    heartbeat_seconds: number;
    notify_poll_seconds: number;
    poll_seconds: number;
    shutdown_grace_seconds: number;
    default_retry: { limit?: number; backoff?: boolean; delay?: string | number };
    default_timeout: string | number;
  };
  pipelines: { ops_dir: string };
  plugins: string[];
  watch: { enabled: boolean; stable_ms: number; folders: Array<{ path: string; pipeline: string }>; account_id: string };
  render: { render_top: number };
  network: { allow_loopback: boolean; extra_ca: string };
  webhooks: { time_scale: number; timeout_ms: number; disable_after_hours: number };
  openai: { base_url: string; api_key: string; model: string };
  transcribe: { engine: string };
  [key: string]: any;
};

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

const SECRET_KEYS = /(api_key|secret|password|token|database_url)$/i;

function isObject(v: unknown): v is Record<string, any> {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

export function mergeDeep(base: Record<string, any>, over: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] = isObject(v) && isObject(base[k]) ? mergeDeep(base[k], v) : v;
  }
  return out;
}

function readYaml(file: string, what: string): Record<string, any> {
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

function fromEnv(env: NodeJS.ProcessEnv): Record<string, any> {
  const out: Record<string, any> = {};
  const set = (keys: string[], value: unknown) => {
    let o = out;
    for (const k of keys.slice(0, -1)) o = o[k] ??= {};
    o[keys.at(-1)!] = value;
  };
  if (env.PORT !== undefined && env.PORT !== "") {
    const port = Number(env.PORT);
    set(["server", "port"], Number.isInteger(port) ? port : env.PORT);
  }
  if (env.DATABASE_URL !== undefined) set(["database_url"], env.DATABASE_URL);
  if (env.CLIPD_DATA_DIR) set(["data_dir"], env.CLIPD_DATA_DIR);
  if (env.CLIPD_LOG_LEVEL) set(["log", "level"], env.CLIPD_LOG_LEVEL);
  if (env.CLIPD_OPS_TOKEN) set(["server", "ops_token"], env.CLIPD_OPS_TOKEN);
  if (env.CLIPD_PUBLIC_URL) set(["server", "public_url"], env.CLIPD_PUBLIC_URL);
  if (env.OPENAI_API_KEY) set(["openai", "api_key"], env.OPENAI_API_KEY);
  if (env.OPENAI_BASE_URL) set(["openai", "base_url"], env.OPENAI_BASE_URL);
  if (env.LLM_API_KEY) set(["llm", "api_key"], env.LLM_API_KEY);
  if (env.LLM_BASE_URL) set(["llm", "base_url"], env.LLM_BASE_URL);
  if (env.LLM_MODEL) set(["llm", "model"], env.LLM_MODEL);
  return out;
}

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** Overrides applied last (tests, `--set`). */
  overrides?: Record<string, any>;
}

export function loadConfig(opts: LoadConfigOptions = {}): Config {
  const env = opts.env ?? process.env;
  const root = projectRoot();
  let cfg = readYaml(path.join(root, "config", "default.yaml"), "default config");
  if (env.CLIPD_CONFIG) cfg = mergeDeep(cfg, readYaml(path.resolve(env.CLIPD_CONFIG), "config file"));
  cfg = mergeDeep(cfg, fromEnv(env));
  if (opts.overrides) cfg = mergeDeep(cfg, opts.overrides);
  validate(cfg);
  cfg.data_dir = path.resolve(cfg.data_dir);
  if (cfg.pipelines?.ops_dir) cfg.pipelines.ops_dir = path.resolve(cfg.pipelines.ops_dir);
  return cfg as Config;
}

function validate(cfg: Record<string, any>) {
  const schema = JSON.parse(readFileSync(path.join(projectRoot(), "config", "schema.json"), "utf8"));
  const ajv = new Ajv({ allErrors: true, strict: false });
  const check = ajv.compile(schema);
  if (check(cfg)) return;
  const lines = (check.errors ?? []).map((e) => {
    const key = e.instancePath.replace(/^\//, "").replace(/\//g, ".");
    if (e.keyword === "additionalProperties") {
      const extra = (e.params as any).additionalProperty;
      return `${key ? key + "." : ""}${extra}: unknown key`;
    }
    return `${key || "(top level)"}: ${e.message}`;
  });
  throw new ConfigError(`invalid config:\n  ${[...new Set(lines)].join("\n  ")}`);
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
