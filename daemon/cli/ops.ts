// The CLI's operations commands: stage, pipelines, models and the admin commands (account, key,
// credit). The daemon roles and `run` stay in main.ts.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Ajv, type ErrorObject } from "ajv";
import { projectRoot, type Config } from "../../config/loader.js";
import { UsageError, parseSets } from "./args.js";
import { createLogger } from "../ops/log.js";
import { DomainError } from "../domain/errors.js";
import { readOpsToken } from "../ops/ops-token.js";
import { formatIssues, loadPipelines, pipelineDirs } from "../engine/pipelines.js";
import { loadStages } from "../boot/stages.js";
import { StageError } from "../engine/stage.js";
import { optionsMarkdown } from "./options-doc.js";
import { openStorage } from "../boot/storage-of.js";
import { openDb } from "../store/db.js";
import { migrate } from "../store/migrate.js";
import { listModels, MODELS, pullModel } from "../../plugins/transcribe/engines/models.js";

// biome-ignore lint/suspicious/noExplicitAny: parseArgs values; each command checks its own flags
export async function cmdStage(cfg: Config, args: string[], values: Record<string, any>) {
  const [name] = args;
  if (!name || !values.input) throw new UsageError("usage: clipd stage <name> --input FILE.json [--set key=value]");
  const { stages } = await loadStages({ plugins: cfg.plugins });
  const stage = stages.get(name);
  if (!stage) throw new UsageError(`unknown stage "${name}" (known: ${[...stages.keys()].sort().join(", ")})`);
  const input = JSON.parse(await readFile(values.input, "utf8"));
  const options = { ...(input.options ?? {}), ...parseSets(values.set) };
  const validate = new Ajv({ strict: false, useDefaults: true, allErrors: true }).compile(stage.options);
  if (!validate(options)) {
    const where = (e: ErrorObject) =>
      e.instancePath || (e.params as { additionalProperty?: string }).additionalProperty;
    throw new UsageError(
      `invalid options for ${name}: ${validate.errors!.map((e) => `${where(e) ?? ""} ${e.message}`).join("; ")}`,
    );
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
      storage: openStorage(cfg),
      runId: values.run ?? "00000000-0000-4000-8000-000000000000",
      stepId: "stage",
      pipeline: "(stage)",
      options,
      config: cfg,
    });
    process.stdout.write(JSON.stringify(output, null, 2) + "\n");
  } catch (err) {
    if (err instanceof StageError) {
      process.stdout.write(
        JSON.stringify(
          { error: { code: err.code, message: err.message, retryable: err.retryable, ...err.details } },
          null,
          2,
        ) + "\n",
      );
      process.exitCode = 1;
      return;
    }
    throw err;
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
}

export async function cmdPipelines(cfg: Config, args: string[], values: { markdown?: boolean } = {}) {
  const [sub, arg] = args;
  const registry = await loadStages({ plugins: cfg.plugins });
  if (sub === "describe" && values.markdown && !arg) {
    const names = [...registry.stages.keys()].sort();
    process.stdout.write(names.map((n) => `### ${n}\n\n${optionsMarkdown(registry.stages.get(n)!)}`).join("\n"));
    return;
  }
  if (sub === "describe") {
    if (!arg)
      throw new UsageError(
        "usage: clipd pipelines describe <stage> [--markdown], or describe --markdown for all stages",
      );
    const stage = registry.stages.get(arg);
    if (!stage)
      throw new UsageError(`unknown stage "${arg}" (known: ${[...registry.stages.keys()].sort().join(", ")})`);
    if (values.markdown) {
      process.stdout.write(optionsMarkdown(stage));
      return;
    }
    // biome-ignore lint/suspicious/noExplicitAny: parseArgs values; each command checks its own flags
    const props = ((stage.options as any).properties ?? {}) as Record<string, any>;
    // biome-ignore lint/suspicious/noExplicitAny: parseArgs values; each command checks its own flags
    const required = new Set<string>((stage.options as any).required ?? []);
    const lines = [`${stage.name} — ${stage.summary}`, `from: ${registry.origins.get(stage.name)}`, "options:"];
    for (const [k, p] of Object.entries(props)) {
      const type = p.enum ? p.enum.map((v: unknown) => JSON.stringify(v)).join("|") : (p.type ?? "any");
      const extra = [
        p.default !== undefined ? `default ${JSON.stringify(p.default)}` : "",
        p.minimum !== undefined ? `min ${p.minimum}` : "",
        p.maximum !== undefined ? `max ${p.maximum}` : "",
        required.has(k) ? "required" : "",
      ]
        .filter(Boolean)
        .join(", ");
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
      process.stdout.write(
        `${p.name.padEnd(12)} ${steps}${fail}\n               ${path.relative(process.cwd(), p.file)}\n`,
      );
    }
    process.stdout.write(
      `stages: ${[...registry.stages.keys()]
        .sort()
        .map((s) => (registry.origins.get(s) === "builtin" ? s : `${s} (${registry.origins.get(s)})`))
        .join(", ")}\n`,
    );
    if (issues.length) {
      process.stderr.write(`${issues.length} problem(s):\n${formatIssues(issues)}\n`);
      process.exitCode = 1;
    }
    return;
  }
  throw new UsageError("usage: clipd pipelines lint|list|describe <stage>");
}

/** `clipd account create`, `key create|revoke`, `credit add`: one JSON line each. */
// biome-ignore lint/suspicious/noExplicitAny: parseArgs values; each command checks its own flags
export async function cmdAdmin(cfg: Config, command: string, values: Record<string, any>) {
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
    // A running daemon holds the embedded database: ask it through its ops route, with the
    // configured token or the one it wrote to the data folder.
    const token = await readOpsToken(cfg);
    const res = await fetch(`http://127.0.0.1:${cfg.server.port}/api/v1/admin`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({
        command,
        args: Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined)),
      }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: parseArgs values; each command checks its own flags
    const body = (await res.json()) as any;
    if (!res.ok) throw new UsageError(body?.error?.message ?? `daemon answered ${res.status}`);
    process.stdout.write(JSON.stringify(body) + "\n");
    return;
  }
  try {
    await migrate(db);
    const { AccountService } = await import("../account/accounts.js");
    const { runAdmin } = await import("../account/admin.js");
    const out = await runAdmin(new AccountService(db), command, args);
    process.stdout.write(JSON.stringify(out) + "\n");
  } catch (err) {
    if (err instanceof DomainError) throw new UsageError(err.message);
    throw err;
  } finally {
    await db.close();
  }
}

export async function cmdModels(cfg: Config, args: string[]) {
  const [sub, name] = args;
  if (sub === "list") {
    // What is installed, then the official models that could be pulled.
    const local = await listModels(cfg.data_dir);
    const mib = (b: number) => `${(b / 1048576).toFixed(0)} MiB`;
    for (const m of local)
      process.stdout.write(
        `installed  ${m.name.padEnd(24)} ${mib(m.bytes).padStart(9)}${m.real ? "" : "  (test file, no weights)"}\n`,
      );
    for (const m of MODELS)
      if (!local.some((l) => l.name === m.name))
        process.stdout.write(
          `available  ${m.name.padEnd(24)} ${mib(m.bytes).padStart(9)}  (clipd models pull ${m.name})\n`,
        );
    return;
  }
  if (sub === "pull") {
    if (!name) throw new UsageError("usage: clipd models pull <name>");
    const file = await pullModel(name, cfg.data_dir, {
      host: cfg.transcribe.model_host,
      onProgress: (got, total) => process.stderr.write(`\r${((100 * got) / Math.max(1, total)).toFixed(0)}%`),
    }).catch((err: Error) => {
      throw new UsageError(err.message);
    });
    process.stderr.write("\n");
    process.stdout.write(`installed ${file}\n`);
    return;
  }
  throw new UsageError("usage: clipd models list|pull <name>");
}
