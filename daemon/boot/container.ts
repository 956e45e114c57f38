/**
 * The composition root's container: every service of a process is registered here once, under a
 * token, and built on first use from the services it names. The domain classes stay free of the
 * container (no decorators): each factory below is the one place that says what a service is
 * made of, so a test or a role can swap one registration (a fake paid API, another storage)
 * without touching the classes.
 *
 * What must be opened asynchronously (the database, the queue, the stage registry) is opened by
 * daemon/boot/app.ts and registered as a value; everything else is a cached factory.
 */
import "reflect-metadata";
import {
  container as rootContainer,
  instanceCachingFactory,
  type DependencyContainer,
  type InjectionToken,
} from "tsyringe";
import type { Logger } from "pino";
import type { Config } from "../../config/loader.js";
import type { Pipeline } from "../engine/pipelines.js";
import type { QueueManager } from "../engine/queue.js";
import type { StageRegistry } from "../engine/registry.js";
import { Runner } from "../engine/runner.js";
import { WorkerBoard } from "../engine/workers.js";
import type { Storage } from "../storage/storage.js";
import type { Db } from "../store/db.js";
import { AccountService } from "../account/accounts.js";
import { accountStageEvent } from "../account/stage-events.js";
import { BillingService } from "../account/billing.js";
import { EpisodeService } from "../account/episodes.js";
import { TranscriptService } from "../account/transcripts.js";
import { WebhookService } from "../account/webhooks.js";
import { FreeService } from "../free/service.js";
import { WebService } from "../web/service.js";
import { AccountRemoval } from "../web/removal.js";
import { PaymentService } from "../payments/service.js";
import { StudioService } from "../studio/service.js";
import { OAuthService } from "../oauth/service.js";

/** Tokens for what has no class of its own (or is opened before the container is filled). */
export const TOKENS = {
  config: Symbol("clipd:config") as InjectionToken<Config>,
  log: Symbol("clipd:log") as InjectionToken<Logger>,
  db: Symbol("clipd:db") as InjectionToken<Db>,
  storage: Symbol("clipd:storage") as InjectionToken<Storage>,
  queue: Symbol("clipd:queue") as InjectionToken<QueueManager>,
  registry: Symbol("clipd:registry") as InjectionToken<StageRegistry>,
  pipelines: Symbol("clipd:pipelines") as InjectionToken<Map<string, Pipeline>>,
} as const;

export interface Opened {
  config: Config;
  log: Logger;
  db: Db;
  storage: Storage;
  queue: QueueManager;
  registry: StageRegistry;
  pipelines: Map<string, Pipeline>;
}

/** A child of tsyringe's root container holding one process's services. */
export function buildContainer(opened: Opened): DependencyContainer {
  const c = rootContainer.createChildContainer();
  for (const [name, token] of Object.entries(TOKENS)) c.register(token, { useValue: opened[name as keyof Opened] });
  const once = <T>(token: InjectionToken<T>, make: (c: DependencyContainer) => T) =>
    c.register(token, { useFactory: instanceCachingFactory(make) });
  const child = (c: DependencyContainer, service: string) => c.resolve(TOKENS.log).child({ service });

  once(
    Runner,
    (c) =>
      new Runner({
        db: c.resolve(TOKENS.db),
        queue: c.resolve(TOKENS.queue),
        registry: c.resolve(TOKENS.registry),
        pipelines: c.resolve(TOKENS.pipelines),
        storage: c.resolve(TOKENS.storage),
        log: c.resolve(TOKENS.log),
        config: c.resolve(TOKENS.config),
        stageEvents: accountStageEvent,
      }),
  );
  once(WorkerBoard, (c) => new WorkerBoard(c.resolve(TOKENS.db)));
  once(AccountService, (c) => new AccountService(c.resolve(TOKENS.db)));
  once(BillingService, (c) => new BillingService(c.resolve(AccountService)));
  once(
    EpisodeService,
    (c) =>
      new EpisodeService({
        db: c.resolve(TOKENS.db),
        runner: c.resolve(Runner),
        billing: c.resolve(BillingService),
        storage: c.resolve(TOKENS.storage),
        config: c.resolve(TOKENS.config),
        log: child(c, "episodes"),
      }),
  );
  once(
    TranscriptService,
    (c) =>
      new TranscriptService({
        db: c.resolve(TOKENS.db),
        runner: c.resolve(Runner),
        storage: c.resolve(TOKENS.storage),
        accounts: c.resolve(AccountService),
        freeUnverified: c.resolve(TOKENS.config).web.free_transcripts_unverified,
      }),
  );
  once(
    FreeService,
    (c) =>
      new FreeService({
        db: c.resolve(TOKENS.db),
        runner: c.resolve(Runner),
        queue: c.resolve(TOKENS.queue),
        storage: c.resolve(TOKENS.storage),
        config: c.resolve(TOKENS.config),
        log: child(c, "free"),
      }),
  );
  once(
    WebhookService,
    (c) =>
      new WebhookService({
        db: c.resolve(TOKENS.db),
        queue: c.resolve(TOKENS.queue),
        config: c.resolve(TOKENS.config),
        log: child(c, "webhooks"),
      }),
  );
  once(
    PaymentService,
    (c) =>
      new PaymentService({
        db: c.resolve(TOKENS.db),
        accounts: c.resolve(AccountService),
        billing: c.resolve(BillingService),
        config: c.resolve(TOKENS.config).payments,
        log: child(c, "payments"),
      }),
  );
  once(
    AccountRemoval,
    (c) =>
      new AccountRemoval({
        db: c.resolve(TOKENS.db),
        storage: c.resolve(TOKENS.storage),
        queue: c.resolve(TOKENS.queue),
        log: child(c, "account-removal"),
      }),
  );
  once(
    StudioService,
    (c) =>
      new StudioService({
        db: c.resolve(TOKENS.db),
        runner: c.resolve(Runner),
        storage: c.resolve(TOKENS.storage),
        config: c.resolve(TOKENS.config),
        log: child(c, "studio"),
        transcripts: c.resolve(TranscriptService),
      }),
  );
  once(OAuthService, (c) => new OAuthService({ db: c.resolve(TOKENS.db) }));
  once(
    WebService,
    (c) =>
      new WebService({
        db: c.resolve(TOKENS.db),
        accounts: c.resolve(AccountService),
        config: c.resolve(TOKENS.config),
        log: child(c, "web"),
      }),
  );
  return c;
}
