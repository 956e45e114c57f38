#!/usr/bin/env node
/** The `clipd` command line. */
import "reflect-metadata";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { ConfigError, loadConfig, maskSecrets, type Config } from "../../config/loader.js";
import { loadPipelineSet, openApp } from "./app.js";
import { progressPrinter } from "../cli/output.js";
import { formatChecks, runDoctor } from "../cli/doctor.js";
import { checkRenderTop, rendersFollow, splitOptions, startClipRenders } from "../watch/followups.js";
import { createLogger } from "../ops/log.js";
import { parseSets, UsageError } from "../cli/args.js";
import { cmdAdmin, cmdModels, cmdPipelines, cmdStage } from "../cli/ops.js";
import { cmdConfigDescribe } from "../cli/config-doc.js";
import { cmdResetPassword } from "../cli/account.js";
import { PipelineError } from "../engine/pipelines.js";
import { eventsFor, writeResults } from "../watch/results.js";
import { startRoles, type Role, type RunningRoles } from "./roles.js";
import { RunError, type Run } from "../engine/runner.js";
import { PluginError } from "../engine/registry.js";
import { DatabaseError, openDb } from "../store/db.js";
import { migrate } from "../store/migrate.js";
import { relayStdio } from "../../facade/mcp/stdio.js";
import { localUrl, readDaemonFile, removeDaemonFile, writeDaemonFile } from "./daemon-file.js";

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
  pipelines describe [<stage>] --markdown   the options table(s) of docs/
  config print                   the effective config (secrets masked)
  config describe [--markdown]   every config key: type, default, env variable, meaning
  models list|pull <name>        whisper models
Tool server
  mcp --stdio                    MCP over stdin/stdout for desktop clients; CLIPD_API_KEY is the key,
                                 CLIPD_URL a running clipd (without it: the daemon named in
                                 <data_dir>/daemon.json, else one in this process)
Accounts (prints one JSON line)
  account create --email E [--credit-cents N] [--plan]
  account reset-password --email E [--password P]   (else read from stdin or asked for; ends its sessions)
  key create --account ID --mode live|test --scopes clips.read,clips.write,transcripts,webhooks
             [--expires-in-days 30|90]
  key revoke --key-id ID
  credit add --account ID --cents N

Environment: PORT, DATABASE_URL, CLIPD_DATA_DIR, CLIPD_CONFIG, CLIPD_LOG_LEVEL`;

async function cmdRoles(cfg: Config, roles: Role[]) {
  const log = createLogger(cfg);
  const { runDoctor: doctor } = await import("../cli/doctor.js");
  for (const c of await doctor(cfg, { database: false })) {
    if (c.level !== "ok")
      log.warn({ check: c.name, detail: c.detail, fix: c.fix }, `missing: ${c.name} — fix: ${c.fix}`);
  }
  const app = await openApp(cfg, log);
  // The handlers come before the roles start: the watch role may settle work (and say so) while
  // the others are still starting, and a SIGTERM then must stop gracefully, not kill at once.
  let running: RunningRoles | undefined;
  let requested: string | undefined;
  const stop = (sig: string) => void running!.stop(sig).then(() => process.exit(0));
  const onSignal = (sig: string) => {
    if (running) stop(sig);
    else requested = sig; // stopped as soon as the roles are up
    process.once(sig as NodeJS.Signals, () => process.exit(1)); // a second signal stops at once
  };
  process.once("SIGTERM", () => onSignal("SIGTERM"));
  process.once("SIGINT", () => onSignal("SIGINT"));
  const started = await startRoles(app, roles);
  running = started;
  if (started.url) {
    // Where this daemon really answers, for `clipd mcp --stdio` without CLIPD_URL (daemon-file.ts).
    const port = Number(new URL(started.url).port);
    await writeDaemonFile(cfg.data_dir, localUrl(cfg.server.host, port));
    const stopRoles = started.stop.bind(started);
    started.stop = (reason) => removeDaemonFile(cfg.data_dir).then(() => stopRoles(reason));
    process.stderr.write(`clipd ${app.version} is up: ${started.url}/healthz\n`);
  }
  if (requested) stop(requested);
}

// biome-ignore lint/suspicious/noExplicitAny: parseArgs values; each command checks its own flags
async function cmdRun(cfg: Config, args: string[], values: Record<string, any>) {
  const [pipeline, target] = args;
  if (!pipeline || !target)
    throw new UsageError("usage: clipd run <pipeline> <file-or-url> [--out DIR] [--set key=value]");
  const isUrl = /^[a-z]+:\/\//i.test(target);
  if (!isUrl && !existsSync(target)) throw new UsageError(`no such file: ${target}`);
  const { render_top: renderTop, ...sets } = parseSets(values.set);
  try {
    checkRenderTop(renderTop);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
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
    const { run: set, renders } = splitOptions(app.runner, pipeline, sets); // style etc. go to the clip renders
    let input: Record<string, unknown>;
    if (isUrl) input = { source_url: target };
    else {
      const key = `uploads/cli/${Date.now()}/${name}`;
      await app.storage.putFile(key, path.resolve(target));
      input = { upload: { key, name } };
    }
    const account = values.account ? { account_id: String(values.account) } : {};
    const run = await app.runner.startRun(
      pipeline,
      { ...input, options: set, ...account },
      { origin: "cli", originRef: name, set },
    );
    const done = await app.runner.waitForRun(run.id, { onUpdate: (r) => bar.update(r, `${pipeline} `) });
    bar.done();
    let kids: Run[] = [];
    if (done.state === "succeeded" && rendersFollow(app.runner, pipeline)) {
      const top = Number(renderTop ?? cfg.render.render_top);
      const ids = await startClipRenders(app.runner, done, top, { origin: "cli", originRef: name, set: renders });
      for (const [i, id] of ids.entries()) {
        kids.push(await app.runner.waitForRun(id, { onUpdate: (r) => bar.update(r, `clip ${i + 1}/${ids.length} `) }));
        bar.done();
      }
    }
    const events = await eventsFor(app.db, [done.id, ...kids.map((k) => k.id)]);
    const written = await writeResults(app.storage, done, out, kids, events);
    if (done.state !== "succeeded") {
      exitCode = 1;
      process.stderr.write(
        `failed: ${done.error?.code}: ${done.error?.message}` +
          `${done.error?.stage ? ` (stage ${done.error.stage})` : ""}\n`,
      );
    }
    const failedKids = kids.filter((k) => k.state !== "succeeded");
    if (failedKids.length) {
      exitCode = 1;
      for (const k of failedKids) process.stderr.write(`clip failed: ${k.error?.code}: ${k.error?.message}\n`);
    }
    process.stdout.write(
      `${done.state}: ${written.length} file(s) in ${out}\n${written.map((w) => `  ${w}`).join("\n")}\n`,
    );
    if (events.length) process.stdout.write(`events: ${events.map((e) => e.type).join(", ")}\n`);
  } finally {
    await roles.stop("done");
    await rm(scratch, { recursive: true, force: true });
  }
  process.exitCode = exitCode;
}

/**
 * The MCP tool server over stdio (facade/mcp/stdio.ts relays to a clipd's /mcp). Without CLIPD_URL
 * this process runs the serve and work roles itself on the embedded database, on a loopback port
 * of its own, so the relay, auth and links are the same as against a remote clipd.
 */
// biome-ignore lint/suspicious/noExplicitAny: parseArgs values; each command checks its own flags
async function cmdMcp(cfg: Config, values: Record<string, any>) {
  if (!values.stdio)
    throw new UsageError("usage: clipd mcp --stdio (with CLIPD_API_KEY, and CLIPD_URL for a running clipd)");
  const apiKey = process.env.CLIPD_API_KEY;
  if (!apiKey) throw new UsageError("clipd mcp needs CLIPD_API_KEY: an account key (svc_live_… or svc_test_…)");
  // CLIPD_URL, else the daemon of this data folder where it says it answers (daemon-file.ts).
  let url = process.env.CLIPD_URL || (await readDaemonFile(cfg.data_dir))?.url;
  let running: Awaited<ReturnType<typeof startRoles>> | undefined;
  if (!url) {
    const local = { ...cfg, server: { ...cfg.server, host: "127.0.0.1", port: 0 } };
    try {
      running = await startRoles(await openApp(local, createLogger(local)), ["serve", "work"]);
      url = running.url!;
    } catch (err) {
      // A clipd daemon holds the embedded database already: relay to it where it says it answers
      // (it may have written daemon.json since the look above), else at its configured port.
      if (!/in use by process/.test((err as Error).message)) throw err;
      url = (await readDaemonFile(cfg.data_dir))?.url ?? localUrl(cfg.server.host, cfg.server.port);
    }
  }
  const relay = await relayStdio({ url, apiKey });
  await relay.closed;
  await running?.stop("stdin closed");
  // The client has gone: leave now rather than wait on the queue's and pools' timers.
  process.exit(0);
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
      password: { type: "string" },
      cents: { type: "string" },
      markdown: { type: "boolean" },
      stdio: { type: "boolean" },
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
      process.stdout.write(
        failed.length ? `\n${failed.length} required thing(s) missing.\n` : "\nclipd has what it needs.\n",
      );
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
      return cmdPipelines(cfg, rest, values);
    case "config":
      if (rest[0] === "describe") return cmdConfigDescribe(rest.slice(1), values);
      if (rest[0] !== "print") throw new UsageError("usage: clipd config print|describe [--markdown]");
      await loadPipelineSet(cfg).catch(() => undefined);
      process.stdout.write(JSON.stringify(maskSecrets(cfg), null, 2) + "\n");
      return;
    case "models":
      return cmdModels(cfg, rest);
    case "mcp":
      return cmdMcp(cfg, values);
    case "account":
    case "key":
    case "credit": {
      if (cmd === "account" && rest[0] === "reset-password") return cmdResetPassword(cfg, values);
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
  if (err instanceof RunError || err instanceof DatabaseError || err instanceof PluginError) {
    process.stderr.write(`clipd: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`clipd: ${err?.stack ?? err}\n`);
  process.exit(1);
});
