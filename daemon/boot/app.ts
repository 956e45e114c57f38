/**
 * Wiring: opens what every role uses from the config, then fills the container (container.ts) and
 * resolves the services from it. Opening order matters: stage registry and pipelines (a broken
 * pipeline stops here, before any work is taken), database and migrations, then the queue.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import { projectRoot, type Config } from "../../config/loader.js";
import { loadPipelines, pipelineDirs, PipelineError, type Pipeline } from "../engine/pipelines.js";
import { QueueManager } from "../engine/queue.js";
import type { StageRegistry } from "../engine/registry.js";
import { loadStages } from "./stages.js";
import { Runner } from "../engine/runner.js";
import { buildContainer } from "./container.js";
import { notifyWatchRunEnds } from "../watch/run-ends.js";
import type { DependencyContainer } from "tsyringe";
import type { Storage } from "../storage/storage.js";
import { openStorage } from "./storage-of.js";
import { openDb, type Db } from "../store/db.js";
import { migrate } from "../store/migrate.js";
import { WorkerBoard } from "../engine/workers.js";
import { AccountService } from "../account/accounts.js";
import { BillingService } from "../account/billing.js";
import { EpisodeService } from "../account/episodes.js";
import { TranscriptService } from "../account/transcripts.js";
import { WebhookService } from "../account/webhooks.js";
import { FreeService } from "../free/service.js";
import { WebService } from "../web/service.js";
import { AccountRemoval } from "../web/removal.js";
import { PaymentService } from "../payments/service.js";

/** The process's services, resolved from its container (daemon/boot/container.ts). */
export interface ClipdApp {
  container: DependencyContainer;
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
  web: WebService;
  payments: PaymentService;
  version: string;
  close(opts?: { graceSeconds?: number }): Promise<void>;
}

export function clipdVersion(): string {
  return JSON.parse(readFileSync(path.join(projectRoot(), "package.json"), "utf8")).version;
}

export async function loadPipelineSet(
  config: Config,
): Promise<{ registry: StageRegistry; pipelines: Map<string, Pipeline> }> {
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

export async function openApp(
  config: Config,
  log: Logger,
  opts: { memoryDb?: boolean; storageDir?: string } = {},
): Promise<ClipdApp> {
  const { registry, pipelines } = await loadPipelineSet(config);
  const db = await openDb({
    databaseUrl: config.database_url || undefined,
    dataDir: config.data_dir,
    memory: opts.memoryDb,
  });
  try {
    const applied = await migrate(db);
    if (applied.length) log.info({ applied }, "database migrated");
    const storage = openStorage(config, opts.storageDir);
    const queue = new QueueManager(db, config, log);
    await queue.start();
    const c = buildContainer({ config, log, db, storage, queue, registry, pipelines });
    const accounts = c.resolve(AccountService);
    await accounts.start();
    const episodes = c.resolve(EpisodeService);
    const transcripts = c.resolve(TranscriptService);
    const free = c.resolve(FreeService);
    const webhooks = c.resolve(WebhookService);
    // The run-end hooks, queues and schedules: once per process, here and nowhere else.
    episodes.register();
    transcripts.register();
    notifyWatchRunEnds(c.resolve(Runner));
    await free.prepare();
    await webhooks.prepare();
    await c.resolve(AccountRemoval).prepare();
    const workers = c.resolve(WorkerBoard);
    return {
      container: c,
      config,
      log,
      db,
      queue,
      runner: c.resolve(Runner),
      registry,
      pipelines,
      storage,
      workers,
      accounts,
      billing: c.resolve(BillingService),
      episodes,
      webhooks,
      transcripts,
      free,
      web: c.resolve(WebService),
      payments: c.resolve(PaymentService),
      version: clipdVersion(),
      async close(o = {}) {
        await workers.leave();
        await accounts.stop();
        await c.resolve(WebService).stop();
        await queue.stop({ graceSeconds: o.graceSeconds });
        await db.close();
      },
    };
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}
