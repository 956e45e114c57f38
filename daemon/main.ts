#!/usr/bin/env node
/** The `clipd` command line. */
import "reflect-metadata";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { Ajv } from "ajv";
import { parse as parseYaml } from "yaml";
import { ConfigError, loadConfig, maskSecrets, projectRoot, type Config } from "../config/loader.js";
import { loadPipelineSet, openApp } from "./app.js";
import { progressPrinter } from "./cli-output.js";
import { formatChecks, runDoctor } from "./doctor.js";
import { startClipRenders } from "./followups.js";
import { createLogger } from "./log.js";
import { formatIssues, loadPipelines, pipelineDirs, PipelineError } from "./pipelines.js";
import { loadStageRegistry } from "./registry.js";
import { eventsFor, writeResults } from "./results.js";
import { startRoles, type Role } from "./roles.js";
import type { Run } from "./runner.js";
import { StageError } from "./stage.js";
import { defineLocalStorage } from "./storage.js";
import { openDb } from "./store/db.js";
import { migrate } from "./store/migrate.js";

const USAGE = `clipd — clips and transcripts from long recordings

Usage: clipd <command> [options]

Daemon
  start                          facade, workers and watch folder in one process
  serve | work | watch           one role alone
Work in the foreground
  run <pipeline> <file-or-url> [--out DIR] [--set key=value ...] [--account ID]
  stage <name> --input FILE.json [--set key=value ...]
Operations
  doctor                         what the machine lacks, and the command that fixes it
  migrate                        apply database migrations
  pipelines lint|list            check or list pipelines
  pipelines describe <stage>     a stage's options
  config print                   the effective config (secrets masked)
  models list|pull <name>        whisper models
Accounts (prints one JSON line)
  account create --email E [--credit-cents N] [--plan]
  key create --account ID --mode live|test --scopes clips.read,clips.write,transcripts,webhooks [--expires-in-days 30|90]
  key revoke --key-id ID
  credit add --account ID --cents N

Environment: PORT, DATABASE_URL, CLIPD_DATA_DIR, CLIPD_CONFIG, CLIPD_LOG_LEVEL`;

class UsageError extends Error {}

/** Parses --set key=value pairs; values are read as YAML scalars (numbers, booleans) or strings. */
function parseSets(sets: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of sets) {
    const i = s.indexOf("=");
    if (i <= 0) throw new UsageError(`--set needs key=value, got "${s}"`);
    const raw = s.slice(i + 1);
    let value: unknown = raw;
    try {
      value = parseYaml(raw);
    } catch {
      /* keep the string */
    }
    out[s.slice(0, i)] = value ?? raw;
  }
  return out;
}

async function cmdRoles(cfg: Config, roles: Role[]) {
  const log = createLogger(cfg);
  const { runDoctor: doctor } = await import("./doctor.js");
  for (const c of await doctor(cfg, { database: false })) {
    if (c.level !== "ok") log.warn({ check: c.name, detail: c.detail, fix: c.fix }, `missing: ${c.name} — fix: ${c.fix}`);
  }
  const app = await openApp(cfg, log);
  const running = await startRoles(app, roles);
  if (running.url) process.stderr.write(`clipd ${app.version} is up: ${running.url}/healthz\n`);
  const onSignal = (sig: string) => {
    void running.stop(sig).then(() => process.exit(0));
    process.once(sig as NodeJS.Signals, () => process.exit(1)); // a second signal stops at once
  };
  process.once("SIGTERM", () => onSignal("SIGTERM"));
  process.once("SIGINT", () => onSignal("SIGINT"));
}

async function cmdRun(cfg: Config, args: string[], values: Record<string, any>) {
  const [pipeline, target] = args;
  if (!pipeline || !target) throw new UsageError("usage: clipd run <pipeline> <file-or-url> [--out DIR] [--set key=value]");
  const isUrl = /^[a-z]+:\/\//i.test(target);
  if (!isUrl && !existsSync(target)) throw new UsageError(`no such file: ${target}`);
  const { render_top: renderTop, ...set } = parseSets(values.set);
  if (renderTop !== undefined && !(Number.isInteger(renderTop) && (renderTop as number) >= 0)) throw new UsageError(`render_top must be a whole number >= 0, got ${renderTop}`);
  const name = isUrl ? path.basename(new URL(target).pathname) || "download" : path.basename(target);
  const out = path.resolve(values.out ?? path.join("out", name.replace(/\.[^.]+$/, "")));
  const log = createLogger({ log: { ...cfg.log, level: values.verbose ? "info" : "warn" } });
  // The foreground run keeps its own state: in memory unless DATABASE_URL is set, so it never
  // contends with a daemon holding the embedded database.
  const scratch = await mkdtemp(path.join(os.tmpdir(), "clipd-run-"));
  const app = await openApp(cfg, log, { memoryDb: !cfg.database_url, storageDir: path.join(scratch, "storage") });
  const roles = await startRoles(app, ["work"]);
  const bar = progressPrinter();
  let exitCode = 0;
  try {
    let input: Record<string, unknown>;
    if (isUrl) input = { source_url: target };
    else {
      const key = `uploads/cli/${Date.now()}/${name}`;
      await app.storage.putFile(key, path.resolve(target));
      input = { upload: { key, name } };
    }
    const account = values.account ? { account_id: String(values.account) } : {};
    const run = await app.runner.startRun(pipeline, { ...input, options: set, ...account }, { origin: "cli", originRef: name, set });
    const done = await app.runner.waitForRun(run.id, { onUpdate: (r) => bar.update(r, `${pipeline} `) });
    bar.done();
    let kids: Run[] = [];
    if (done.state === "succeeded" && pipeline === "episode") {
      const top = Number(renderTop ?? cfg.render.render_top);
      const ids = await startClipRenders(app.runner, done, top, { origin: "cli", originRef: name, set });
      for (const [i, id] of ids.entries()) {
        kids.push(await app.runner.waitForRun(id, { onUpdate: (r) => bar.update(r, `clip ${i + 1}/${ids.length} `) }));
        bar.done();
      }
    }
    const events = await eventsFor(app.db, [done.id, ...kids.map((k) => k.id)]);
    const written = await writeResults(app.storage, done, out, kids, events);
    if (done.state !== "succeeded") {
      exitCode = 1;
      process.stderr.write(`failed: ${done.error?.code}: ${done.error?.message}${done.error?.stage ? ` (stage ${done.error.stage})` : ""}\n`);
    }
    const failedKids = kids.filter((k) => k.state !== "succeeded");
    if (failedKids.length) {
      exitCode = 1;
      for (const k of failedKids) process.stderr.write(`clip failed: ${k.error?.code}: ${k.error?.message}\n`);
    }
    process.stdout.write(`${done.state}: ${written.length} file(s) in ${out}\n${written.map((w) => `  ${w}`).join("\n")}\n`);
    if (events.length) process.stdout.write(`events: ${events.map((e) => e.type).join(", ")}\n`);
  } finally {
    await roles.stop("done");
    await rm(scratch, { recursive: true, force: true });
  }
  process.exitCode = exitCode;
}

async function cmdStage(cfg: Config, args: string[], values: Record<string, any>) {
  const [name] = args;
  if (!name || !values.input) throw new UsageError("usage: clipd stage <name> --input FILE.json [--set key=value]");
  const { stages } = await loadStageRegistry({ plugins: cfg.plugins });
  const stage = stages.get(name);
  if (!stage) throw new UsageError(`unknown stage "${name}" (known: ${[...stages.keys()].sort().join(", ")})`);
  const input = JSON.parse(await readFile(values.input, "utf8"));
  const options = { ...(input.options ?? {}), ...parseSets(values.set) };
  const validate = new Ajv({ strict: false, useDefaults: true, allErrors: true }).compile(stage.options);
  if (!validate(options)) {
    throw new UsageError(`invalid options for ${name}: ${validate.errors!.map((e) => `${e.instancePath || (e.params as any).additionalProperty || ""} ${e.message}`).join("; ")}`);
  }
  const log = createLogger({ log: { ...cfg.log, level: values.verbose ? "debug" : "warn" } });
  const workdir = await mkdtemp(path.join(os.tmpdir(), "clipd-stage-"));
  const ac = new AbortController();
  process.once("SIGINT", () => ac.abort(new Error("interrupted")));
  try {
    const output = await stage.run(input, {
      signal: ac.signal,
      log,
      progress: (p, note) => values.verbose && process.stderr.write(`${p.toFixed(0)}% ${note ?? ""}\n`),
      workdir,
      storage: defineLocalStorage(path.join(cfg.data_dir, "storage")),
      runId: values.run ?? "00000000-0000-4000-8000-000000000000",
      stepId: "stage",
      pipeline: "(stage)",
      options,
      config: cfg,
    });
    process.stdout.write(JSON.stringify(output, null, 2) + "\n");
  } catch (err) {
    if (err instanceof StageError) {
      process.stdout.write(JSON.stringify({ error: { code: err.code, message: err.message, retryable: err.retryable, ...err.details } }, null, 2) + "\n");
      process.exitCode = 1;
      return;
    }
    throw err;
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
}

async function cmdPipelines(cfg: Config, args: string[]) {
  const [sub, arg] = args;
  const registry = await loadStageRegistry({ plugins: cfg.plugins });
  if (sub === "describe") {
    if (!arg) throw new UsageError("usage: clipd pipelines describe <stage>");
    const stage = registry.stages.get(arg);
    if (!stage) throw new UsageError(`unknown stage "${arg}" (known: ${[...registry.stages.keys()].sort().join(", ")})`);
    const props = ((stage.options as any).properties ?? {}) as Record<string, any>;
    const required = new Set<string>((stage.options as any).required ?? []);
    const lines = [`${stage.name} — ${stage.summary}`, `from: ${registry.origins.get(stage.name)}`, "options:"];
    for (const [k, p] of Object.entries(props)) {
      const type = p.enum ? p.enum.map((v: unknown) => JSON.stringify(v)).join("|") : (p.type ?? "any");
      const extra = [p.default !== undefined ? `default ${JSON.stringify(p.default)}` : "", p.minimum !== undefined ? `min ${p.minimum}` : "", p.maximum !== undefined ? `max ${p.maximum}` : "", required.has(k) ? "required" : ""].filter(Boolean).join(", ");
      lines.push(`  ${k.padEnd(18)} ${String(type).padEnd(22)} ${extra}${p.description ? `  ${p.description}` : ""}`);
    }
    if (!Object.keys(props).length) lines.push("  (none)");
    process.stdout.write(lines.join("\n") + "\n");
    return;
  }
  const { pipelines, issues } = loadPipelines({
    dirs: pipelineDirs(projectRoot(), cfg.pipelines.ops_dir || undefined),
    stages: registry.stages,
    defaults: { retry: cfg.queue.default_retry, timeout: cfg.queue.default_timeout },
    relativeTo: process.cwd(),
  });
  if (sub === "lint") {
    if (issues.length) {
      process.stderr.write(`${issues.length} problem(s):\n${formatIssues(issues)}\n`);
      process.exitCode = 1;
    } else process.stdout.write(`ok: ${pipelines.size} pipeline(s), ${registry.stages.size} stage(s)\n`);
    return;
  }
  if (sub === "list") {
    for (const p of [...pipelines.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      const steps = p.steps.map((s) => s.stage + (s.when ? `[when ${s.when}]` : "")).join(" → ");
      const fail = p.on_failure.length ? `   on failure: ${p.on_failure.map((s) => s.stage).join(" → ")}` : "";
      process.stdout.write(`${p.name.padEnd(12)} ${steps}${fail}\n               ${path.relative(process.cwd(), p.file)}\n`);
    }
    process.stdout.write(`stages: ${[...registry.stages.keys()].sort().map((s) => (registry.origins.get(s) === "builtin" ? s : `${s} (${registry.origins.get(s)})`)).join(", ")}\n`);
    if (issues.length) {
      process.stderr.write(`${issues.length} problem(s):\n${formatIssues(issues)}\n`);
      process.exitCode = 1;
    }
    return;
  }
  throw new UsageError("usage: clipd pipelines lint|list|describe <stage>");
}

/** `clipd account create`, `key create|revoke`, `credit add`: one JSON line each. */
async function cmdAdmin(cfg: Config, command: string, values: Record<string, any>) {
  const args: Record<string, unknown> = {
    email: values.email,
    credit_cents: values["credit-cents"],
    plan: values.plan,
    account: values.account,
    mode: values.mode,
    scopes: values.scopes,
    expires_in_days: values["expires-in-days"],
    key_id: values["key-id"],
    cents: values.cents,
  };
  let db;
  try {
    db = await openDb({ databaseUrl: cfg.database_url || undefined, dataDir: cfg.data_dir });
  } catch (err) {
    if (!/in use by process/.test((err as Error).message)) throw err;
    // A running daemon holds the embedded database: ask it through its ops route.
    const res = await fetch(`http://127.0.0.1:${cfg.server.port}/api/v1/admin`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(cfg.server.ops_token ? { authorization: `Bearer ${cfg.server.ops_token}` } : {}) },
      body: JSON.stringify({ command, args: Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined)) }),
    });
    const body = (await res.json()) as any;
    if (!res.ok) throw new UsageError(body?.error?.message ?? `daemon answered ${res.status}`);
    process.stdout.write(JSON.stringify(body) + "\n");
    return;
  }
  try {
    await migrate(db);
    const { AccountService } = await import("./accounts.js");
    const { runAdmin } = await import("./admin.js");
    const out = await runAdmin(new AccountService(db), command, args);
    process.stdout.write(JSON.stringify(out) + "\n");
  } catch (err) {
    if ((err as Error).name === "AccountError") throw new UsageError((err as Error).message);
    throw err;
  } finally {
    await db.close();
  }
}

async function cmdModels(cfg: Config, args: string[]) {
  const spec = "../plugins/transcribe/models.js";
  const models: any = await import(spec).catch(() => undefined);
  if (!models) throw new UsageError("the whisper engine is not part of this build");
  const [sub, name] = args;
  if (sub === "list") {
    const list = await models.listModels(cfg.data_dir);
    for (const m of list) process.stdout.write(`${m.installed ? "installed" : "         "}  ${String(m.name).padEnd(14)} ${m.size ?? ""}\n`);
    return;
  }
  if (sub === "pull") {
    if (!name) throw new UsageError("usage: clipd models pull <name>");
    const file = await models.pullModel(name, cfg.data_dir, { onProgress: (p: number) => process.stderr.write(`\r${p.toFixed(0)}%`) });
    process.stderr.write("\n");
    process.stdout.write(`installed ${file}\n`);
    return;
  }
  throw new UsageError("usage: clipd models list|pull <name>");
}

export async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: "string" },
      set: { type: "string", multiple: true },
      input: { type: "string" },
      run: { type: "string" },
      verbose: { type: "boolean", short: "v" },
      help: { type: "boolean", short: "h" },
      email: { type: "string" },
      "credit-cents": { type: "string" },
      plan: { type: "boolean" },
      account: { type: "string" },
      mode: { type: "string" },
      scopes: { type: "string" },
      "expires-in-days": { type: "string" },
      "key-id": { type: "string" },
      cents: { type: "string" },
    },
  });
  const [cmd, ...rest] = positionals;
  if (!cmd || values.help || cmd === "help") {
    process.stdout.write(USAGE + "\n");
    return;
  }
  const cfg = loadConfig();
  switch (cmd) {
    case "start":
      return cmdRoles(cfg, ["serve", "work", "watch"]);
    case "serve":
    case "work":
    case "watch":
      return cmdRoles(cfg, [cmd]);
    case "run":
      return cmdRun(cfg, rest, values);
    case "stage":
      return cmdStage(cfg, rest, values);
    case "doctor": {
      const checks = await runDoctor(cfg);
      process.stdout.write(formatChecks(checks) + "\n");
      const failed = checks.filter((c) => c.level === "fail");
      process.stdout.write(failed.length ? `\n${failed.length} required thing(s) missing.\n` : "\nclipd has what it needs.\n");
      process.exitCode = failed.length ? 1 : 0;
      return;
    }
    case "migrate": {
      const db = await openDb({ databaseUrl: cfg.database_url || undefined, dataDir: cfg.data_dir });
      const applied = await migrate(db);
      await db.close();
      process.stdout.write(applied.length ? `applied: ${applied.join(", ")}\n` : "database is up to date\n");
      return;
    }
    case "pipelines":
      return cmdPipelines(cfg, rest);
    case "config":
      if (rest[0] !== "print") throw new UsageError("usage: clipd config print");
      await loadPipelineSet(cfg).catch(() => undefined);
      process.stdout.write(JSON.stringify(maskSecrets(cfg), null, 2) + "\n");
      return;
    case "models":
      return cmdModels(cfg, rest);
    case "account":
    case "key":
    case "credit": {
      const command = `${cmd}.${rest[0] ?? ""}`;
      return cmdAdmin(cfg, command, values);
    }
    default:
      throw new UsageError(`unknown command "${cmd}"\n\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof UsageError || err instanceof ConfigError || err instanceof PipelineError) {
    process.stderr.write(`clipd: ${err.message}\n`);
    process.exit(2);
  }
  if (err?.name === "RunError" || err?.name === "DatabaseError" || err?.name === "PluginError") {
    process.stderr.write(`clipd: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`clipd: ${err?.stack ?? err}\n`);
  process.exit(1);
});

