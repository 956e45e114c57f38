/**
 * Queue benchmark: how fast the runner hands a run from one step to the next, and how many runs a
 * single worker process gets through, on the embedded PGlite database and on PostgreSQL.
 *
 *   npm run build && node dist/bench/queue.js
 *
 * PostgreSQL: BENCH_PG_URL (or DATABASE_URL) names a server the bench may create databases on;
 * without one, a throwaway cluster is started on 127.0.0.1 from the local PostgreSQL install
 * (as the `postgres` user when run as root) and removed afterwards. BENCH_BACKENDS=pglite or
 * BENCH_BACKENDS=postgres runs one backend only. See bench/README.md for the other knobs.
 *
 * Measures:
 * - dispatch latency: runs of the 6-step `bench-chain` pipeline, one at a time, so a worker is
 *   always free. Each `bench-noop` step records its own start and end on the high-resolution clock;
 *   the latency of a transition is the next step's start minus the previous step's end. That span
 *   holds everything between two stages: the finish transaction (step result, next job sent),
 *   the queue's wake-up and fetch, the handler's run lookup and the "running" transaction.
 *   The gap between the runner's recorded `finished_at` and `started_at` (millisecond ISO times,
 *   taken inside those two transactions) is reported beside it.
 * - throughput: N runs of the 3-step `bench-three` pipeline queued at once, completed runs per
 *   second from the first enqueue to the last run finished, at the default worker concurrency and
 *   at concurrency 4.
 *
 * The statistics are in _stats.ts, the result types and the printed report in _queue-report.ts.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { loadConfig, projectRoot } from "../config/loader.js";
import { openApp, type ClipdApp } from "../daemon/boot/app.js";
import { STEP_QUEUE } from "../daemon/engine/queue.js";
import { startRoles, type RunningRoles } from "../daemon/boot/roles.js";
import type { Run } from "../daemon/engine/runner.js";
import { startPgServer, withPgDatabase } from "./_pg.js";
import {
  describeLogLine,
  report,
  type Backend,
  type LatencyResult,
  type ScenarioResult,
  type ThroughputResult,
} from "./_queue-report.js";
import { summarise, transitions } from "./_stats.js";

const envInt = (name: string, fallback: number) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : fallback;
};

const LATENCY_RUNS = envInt("BENCH_LATENCY_RUNS", 40);
const THROUGHPUT_RUNS = envInt("BENCH_RUNS", 200);
const HIGH_CONCURRENCY = envInt("BENCH_CONCURRENCY", 4);
/** A scenario that has not finished after this long is cut short and reported as partial. */
const SCENARIO_LIMIT_MS = envInt("BENCH_SCENARIO_LIMIT_S", 60) * 1000;

const ROOT = projectRoot();
const PLUGIN = path.join(ROOT, "bench", "stages.mjs");
const PIPELINES = path.join(ROOT, "bench", "pipelines");
const CHAIN = "bench-chain";
const THREE = "bench-three";

// ---------------------------------------------------------------------------------------------
// One clipd worker process, in-process

/** Collects the app's warnings (a queue that fell back to polling says so here). */
function warningLog() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk).trim());
      cb();
    },
  });
  return { log: pino({ level: process.env.BENCH_LOG ?? "warn" }, sink), lines };
}

interface Worker {
  app: ClipdApp;
  roles: RunningRoles;
  warnings: string[];
  queueNotify: boolean;
  close(): Promise<void>;
}

async function openWorker(backend: Backend, databaseUrl: string, concurrency: number | undefined): Promise<Worker> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "clipd-bench-data-"));
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, CLIPD_DATA_DIR: dataDir };
  delete env.CLIPD_CONFIG;
  // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
  const overrides: Record<string, any> = {
    plugins: [PLUGIN],
    pipelines: { ops_dir: PIPELINES },
    watch: { enabled: false },
    log: { level: "warn" },
  };
  if (concurrency !== undefined) overrides.queue = { concurrency };
  const config = loadConfig({ env, overrides });
  const { log, lines } = warningLog();
  const app = await openApp(config, log, { memoryDb: backend === "pglite" });
  const roles = await startRoles(app, ["work"]);
  const queue = await app.queue.boss.getQueue(STEP_QUEUE);
  return {
    app,
    roles,
    warnings: lines,
    queueNotify: Boolean(queue?.notify),
    async close() {
      await roles.stop("bench done");
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function runToEnd(app: ClipdApp, pipeline: string, tag: string): Promise<Run> {
  const run = await app.runner.startRun(pipeline, {}, { origin: "ops", originRef: tag });
  return app.runner.waitForRun(run.id, { intervalMs: 20, timeoutMs: SCENARIO_LIMIT_MS });
}

/** Runs of the chain pipeline one after another: the time from a step's end to the next start. */
async function measureLatency(app: ClipdApp, runs: number): Promise<LatencyResult> {
  // Warm-up: first statements, queue cache, JIT.
  for (let i = 0; i < 3; i++) await runToEnd(app, CHAIN, "bench-warmup");
  const done: Run[] = [];
  const deadline = Date.now() + SCENARIO_LIMIT_MS;
  while (done.length < runs && Date.now() < deadline) {
    const run = await runToEnd(app, CHAIN, "bench-latency");
    if (run.state !== "succeeded")
      throw new Error(`latency run ${run.id} ended ${run.state}: ${JSON.stringify(run.error)}`);
    done.push(run);
  }
  const t = transitions(done);
  return { runs: done.length, stage: summarise(t.stage), recorded: summarise(t.recorded), partial: done.length < runs };
}

/** N runs of the 3-step pipeline queued at once; completed runs per second. */
async function measureThroughput(app: ClipdApp, runs: number): Promise<ThroughputResult> {
  const tag = `bench-throughput-${randomBytes(3).toString("hex")}`;
  await runToEnd(app, THREE, "bench-warmup");
  const t0 = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < runs; i++) ids.push((await app.runner.startRun(THREE, {}, { origin: "ops", originRef: tag })).id);
  const enqueueSeconds = (performance.now() - t0) / 1000;
  const deadline = Date.now() + SCENARIO_LIMIT_MS;
  let finished = 0;
  let failed = 0;
  for (;;) {
    const { rows } = await app.db.query<{ finished: number; failed: number }>(
      `select count(*) filter (where state in ('succeeded', 'failed', 'cancelled'))::int as finished,
              count(*) filter (where state <> 'succeeded' and state in ('failed', 'cancelled'))::int as failed
         from runs where origin_ref = $1`,
      [tag],
    );
    finished = Number(rows[0]?.finished ?? 0);
    failed = Number(rows[0]?.failed ?? 0);
    if (finished >= runs || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const seconds = (performance.now() - t0) / 1000;
  const { rows } = await app.db.query<Run>(`select * from runs where origin_ref = $1 and state = 'succeeded'`, [tag]);
  const parsed = rows.map(
    // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
    (r: any) => ({ ...r, steps: typeof r.steps === "string" ? JSON.parse(r.steps) : r.steps }) as Run,
  );
  return {
    runs,
    finished,
    failed,
    seconds,
    runsPerSecond: finished / seconds,
    stepsPerSecond: (finished * 3) / seconds,
    enqueueSeconds,
    stage: summarise(transitions(parsed).stage),
    partial: finished < runs,
  };
}

// ---------------------------------------------------------------------------------------------
// Scenarios and report

async function scenario(
  backend: Backend,
  databaseUrl: string,
  concurrency: number | undefined,
): Promise<ScenarioResult> {
  const t0 = performance.now();
  const w = await openWorker(backend, databaseUrl, concurrency);
  try {
    const latency = await measureLatency(w.app, LATENCY_RUNS);
    const throughput = await measureThroughput(w.app, THROUGHPUT_RUNS);
    return {
      backend,
      concurrency: w.app.config.queue.concurrency,
      notify: w.queueNotify,
      warnings: [
        ...new Set(
          w.warnings
            .flatMap((chunk) => chunk.split("\n"))
            .filter(Boolean)
            .map(describeLogLine),
        ),
      ],
      latency,
      throughput,
      seconds: (performance.now() - t0) / 1000,
    };
  } finally {
    await w.close();
  }
}

async function main() {
  const wanted = (process.env.BENCH_BACKENDS ?? "pglite,postgres").split(",").map((s) => s.trim()) as Backend[];
  const started = performance.now();
  const results: ScenarioResult[] = [];
  const defaultConcurrency = loadConfig({ env: { ...process.env, CLIPD_CONFIG: "" } }).queue.concurrency;
  const concurrencies = [...new Set([defaultConcurrency, HIGH_CONCURRENCY])];
  const progress = (msg: string) =>
    console.error(`[bench ${((performance.now() - started) / 1000).toFixed(0)}s] ${msg}`);

  if (wanted.includes("pglite")) {
    for (const c of concurrencies) {
      progress(`pglite (in memory), concurrency ${c}`);
      results.push(await scenario("pglite", "", c));
    }
  }
  let pgOrigin: string | undefined;
  if (wanted.includes("postgres")) {
    const server = await startPgServer();
    if (!server) {
      progress("PostgreSQL skipped: set BENCH_PG_URL, or install PostgreSQL (initdb under /usr/lib/postgresql)");
    } else {
      pgOrigin = server.origin;
      try {
        for (const c of concurrencies) {
          progress(`postgres, concurrency ${c}`);
          results.push(await withPgDatabase(server.url, (url) => scenario("postgres", url, c)));
        }
      } finally {
        server.stop();
      }
    }
  }
  progress("done");
  console.log(
    report(results, pgOrigin, {
      chain: CHAIN,
      three: THREE,
      latencyRuns: LATENCY_RUNS,
      throughputRuns: THROUGHPUT_RUNS,
    }),
  );
  if (process.env.BENCH_JSON) console.log(JSON.stringify(results, null, 2));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
