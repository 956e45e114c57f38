// Several `clipd work` processes on one PostgreSQL share the work, and no step runs twice.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Runner } from "../../daemon/engine/runner.js";
import { openDb } from "../../daemon/store/db.js";
import { migrate } from "../../daemon/store/migrate.js";
import { QueueManager } from "../../daemon/engine/queue.js";
import { loadPipelineSet } from "../../daemon/boot/app.js";
import { loadConfig } from "../../config/loader.js";
import { defineLocalStorage } from "../../daemon/storage/storage.js";
import pino from "pino";
import { spawnClipd, until, type Spawned } from "../helpers/cli.js";
import { daemonEnv } from "../helpers/daemon-config.js";

const RUNS = 200;

describe.skipIf(!process.env.CLIPD_TEST_PG_URL)("scale-out on PostgreSQL", () => {
  const procs: Spawned[] = [];
  afterEach(() => procs.forEach((p) => p.kill("SIGKILL")));

  it(`two clipd work processes split ${RUNS} quick runs with no step executed twice`, async () => {
    const d = await daemonEnv("postgres", { queue: { concurrency: 4 } });
    for (let i = 0; i < 2; i++) {
      const w = spawnClipd(["work"], d.env);
      procs.push(w);
      await w.waitFor(/worker ready/, 60_000);
    }
    // Enqueue from this process, as the facade of a third machine would.
    const cfg = loadConfig({ env: d.env });
    const db = await openDb({ databaseUrl: d.databaseUrl, dataDir: d.dataDir });
    const log = pino({ level: "silent" });
    await migrate(db);
    const queue = new QueueManager(db, cfg, log);
    await queue.start();
    const { registry, pipelines } = await loadPipelineSet(cfg);
    const runner = new Runner({
      db,
      queue,
      registry,
      pipelines,
      storage: defineLocalStorage(path.join(d.dataDir, "storage")),
      log,
      config: cfg,
    });
    try {
      const ids: string[] = [];
      for (let i = 0; i < RUNS; i++) ids.push((await runner.startRun("t-quick", { total: i })).id);
      await until(
        async () => {
          const { rows } = await db.query(`select count(*)::int as n from runs where state = 'succeeded'`);
          return rows[0].n === RUNS;
        },
        { what: `${RUNS} runs to succeed`, timeoutMs: 180_000, intervalMs: 500 },
      );
      const lines = (await readFile(path.join(d.markers, "executions.log"), "utf8")).trim().split("\n");
      const keys = lines.map((l) => l.split(" ").slice(0, 2).join(" "));
      expect(lines).toHaveLength(RUNS * 2);
      expect(new Set(keys).size).toBe(RUNS * 2); // every (run, step) exactly once
      const pids = new Set(lines.map((l) => l.split(" ")[3]));
      expect(pids.size).toBe(2); // both processes took work
      const perPid = [...pids].map((p) => lines.filter((l) => l.endsWith(` ${p}`)).length);
      expect(Math.min(...perPid)).toBeGreaterThan(RUNS * 0.2);
    } finally {
      await queue.stop();
      await db.close();
    }
  });
});
