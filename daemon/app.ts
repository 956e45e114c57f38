/**
 * Wiring: builds the services every role uses from the config. Opening order matters: database,
 * migrations, stage registry and pipelines (a broken pipeline stops here, before any work is
 * taken), then the queue.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import { projectRoot, type Config } from "../config/loader.js";
import { loadPipelines, pipelineDirs, PipelineError, type Pipeline } from "./engine/pipelines.js";
import { QueueManager } from "./engine/queue.js";
import type { StageRegistry } from "./engine/registry.js";
import { loadStages } from "./stages.js";
import { Runner } from "./engine/runner.js";
import { defineLocalStorage, type Storage } from "./kit/storage.js";
import { openDb, type Db } from "./store/db.js";
import { migrate } from "./store/migrate.js";
import { WorkerBoard } from "./engine/workers.js";
import { AccountService } from "./account/accounts.js";
import { accountStageEvent } from "./account/stage-events.js";
import { BillingService } from "./account/billing.js";
import { EpisodeService } from "./account/episodes.js";
import { TranscriptService } from "./account/transcripts.js";
import { WebhookService } from "./account/webhooks.js";
import { FreeService } from "./free/service.js";

export interface ClipdApp {
  config: Config;
  log: Logger;
  db: Db;
  queue: QueueManager;
  runner: Runner;
  registry: StageRegistry;
  pipelines: Map<string, Pipeline>;
  storage: Storage;
  workers: WorkerBoard;
  accounts: AccountService;
  billing: BillingService;
  episodes: EpisodeService;
  webhooks: WebhookService;
  transcripts: TranscriptService;
  free: FreeService;
  version: string;
  close(opts?: { graceSeconds?: number }): Promise<void>;
}

export function clipdVersion(): string {
  return JSON.parse(readFileSync(path.join(projectRoot(), "package.json"), "utf8")).version;
}

export async function loadPipelineSet(config: Config): Promise<{ registry: StageRegistry; pipelines: Map<string, Pipeline> }> {
  const registry = await loadStages({ plugins: config.plugins });
  const { pipelines, issues } = loadPipelines({
    dirs: pipelineDirs(projectRoot(), config.pipelines.ops_dir || undefined),
    stages: registry.stages,
    defaults: { retry: config.queue.default_retry, timeout: config.queue.default_timeout },
    relativeTo: process.cwd(),
  });
  if (issues.length) throw new PipelineError(issues);
  return { registry, pipelines };
}

export async function openApp(config: Config, log: Logger, opts: { memoryDb?: boolean; storageDir?: string } = {}): Promise<ClipdApp> {
  const { registry, pipelines } = await loadPipelineSet(config);
  const db = await openDb({ databaseUrl: config.database_url || undefined, dataDir: config.data_dir, memory: opts.memoryDb });
  try {
    const applied = await migrate(db);
    if (applied.length) log.info({ applied }, "database migrated");
    const storage = defineLocalStorage(opts.storageDir ?? path.join(config.data_dir, "storage"));
    const queue = new QueueManager(db, config, log);
    await queue.start();
    const runner = new Runner({ db, queue, registry, pipelines, storage, log, config, stageEvents: accountStageEvent });
    const workers = new WorkerBoard(db);
    const accounts = new AccountService(db);
    await accounts.start();
    const billing = new BillingService(accounts);
    const episodes = new EpisodeService({ db, runner, billing, storage, config, log: log.child({ service: "episodes" }) });
    episodes.register();
    // One of each service per process, built here and handed to whoever needs it.
    const transcripts = new TranscriptService({ db, runner, storage, accounts });
    transcripts.register();
    const free = new FreeService({ db, runner, queue, storage, config, log: log.child({ service: "free" }) });
    await free.prepare();
    const webhooks = new WebhookService({ db, queue, config, log: log.child({ service: "webhooks" }) });
    await webhooks.prepare();
    return {
      config,
      log,
      db,
      queue,
      runner,
      registry,
      pipelines,
      storage,
      workers,
      accounts,
      billing,
      episodes,
      webhooks,
      transcripts,
      free,
      version: clipdVersion(),
      async close(o = {}) {
        await workers.leave();
        await accounts.stop();
        await queue.stop({ graceSeconds: o.graceSeconds });
        await db.close();
      },
    };
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}
