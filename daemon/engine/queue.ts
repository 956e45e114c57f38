/**
 * The queue: the only module that talks to pg-boss. Each pipeline step is one job on the
 * `clipd-steps` queue; the YAML's retry and timeout become the job's retry and expiry options.
 * Jobs carry a heartbeat, so a step whose worker died (SIGKILL, power loss) is retried by any
 * live worker once its heartbeat lapses, while a long step on a live worker is never taken twice.
 */
import { PgBoss, fromPglite, type Job, type Db as BossDb } from "pg-boss";
import type { Logger } from "pino";
import type { Config } from "../../config/loader.js";
import type { Db, Queryable } from "../store/db.js";

export const STEP_QUEUE = "clipd-steps";
/**
 * Where pg-boss moves a step job it gave up on (retries spent, expired or heartbeat lost at its
 * limit): its dead letter queue. The runner works it and ends the run the job belonged to, so a
 * run never waits on a job the queue no longer holds (runner.ts work, sql/lose-step.ts).
 */
export const STEP_LOST_QUEUE = "clipd-steps-lost";

/** The pg-boss schema (its default); the reconciliation reads its job table (sql/lose-step.ts). */
const BOSS_SCHEMA = "pgboss";

/**
 * SQL for how many step jobs a worker will take before the queued step job of the `runs` row
 * aliased `r`: those still queued (created or retry, not blocked), due now, of the same priority
 * and made earlier, which is pg-boss's own fetch order (priority, then created_on). Null when the
 * run has no queued step job (its step is running, or it has ended). Both reads stay inside
 * pg-boss's fetch index (job_i11: name, priority, created_on, start_after where state < active
 * and not blocked): the run's own job among the queued ones, then a range count before it.
 * clipd sends every step at the default priority, so equal priority is every job ahead.
 */
export function stepsAheadSql(r = "r"): string {
  const queued = (j: string) => `${j}.name = '${STEP_QUEUE}' and ${j}.state < 'active' and not ${j}.blocked`;
  return `(select (select count(*)::int from ${BOSS_SCHEMA}.job a where ${queued("a")}
      and a.priority = m.priority and a.created_on < m.created_on and a.start_after <= now())
    from ${BOSS_SCHEMA}.job m where ${queued("m")} and m.data->>'runId' = ${r}.id::text
    order by m.created_on limit 1)`;
}

export interface StepJob {
  runId: string;
  phase: "main" | "on_failure";
  index: number;
}

export interface StepJobOptions {
  retryLimit: number;
  retryDelay: number;
  retryBackoff: boolean;
  /** Seconds the step may run; the job expires a little after, as a backstop to our own abort. */
  timeoutSeconds: number;
  /** Send inside this transaction, so the job exists only if the state change commits. */
  tx?: Queryable;
  startAfterSeconds?: number;
}

export type StepHandler = (job: Job<StepJob>) => Promise<void>;

/** Options of a job on one of the daemon's own queues (webhooks and the like). */
export interface SendOptions {
  /** Send inside this transaction, so the job exists only if the state change commits. */
  tx?: Queryable;
  /** Not before this many seconds from now (the database's clock; fractions allowed). */
  startAfterSeconds?: number;
  /** At most one queued job with this key. */
  singletonKey?: string;
  /** Times the queue retries a job whose handler threw or whose worker died. Default 2. */
  retryLimit?: number;
  /** Seconds before a retry. Default 1. */
  retryDelay?: number;
  /** Seconds a job may stay active before it counts as failed (and is retried). Default 60. */
  expireInSeconds?: number;
}

function toBossDb(tx: Queryable): BossDb {
  return { executeSql: (text, values) => tx.query(text, values) };
}

export class QueueManager {
  readonly boss: PgBoss;
  private readonly heartbeat: number;
  private readonly cfg: Config["queue"];
  private active = 0;
  private readonly worked = new Set<string>();

  constructor(
    db: Db,
    cfg: Config,
    private readonly log: Logger,
  ) {
    this.cfg = cfg.queue;
    this.heartbeat = cfg.queue.heartbeat_seconds;
    const common = {
      useListenNotify: true,
      superviseIntervalSeconds: 5,
      monitorIntervalSeconds: 5,
      application_name: "clipd-queue",
    } as const;
    this.boss = db.raw.pglite
      ? // biome-ignore lint/suspicious/noExplicitAny: pg-boss's PGlite adapter and warning event are untyped
        new PgBoss({ ...common, db: fromPglite(db.raw.pglite as any), backend: "pglite" })
      : new PgBoss({ ...common, connectionString: db.raw.connectionString!, max: 6 });
    this.boss.on("error", (err) => this.log.error({ err }, "queue error"));
    // biome-ignore lint/suspicious/noExplicitAny: pg-boss's PGlite adapter and warning event are untyped
    this.boss.on("warning", (w: any) => this.log.warn({ warning: w?.message ?? w }, "queue warning"));
  }

  async start(): Promise<void> {
    await this.boss.start();
    await this.ensureQueue(STEP_LOST_QUEUE);
    await this.ensureQueue(STEP_QUEUE, { deadLetter: STEP_LOST_QUEUE });
  }

  /**
   * SQL true when the `runs` row aliased `r` has a job the queue will still hand out or is working
   * for its current step (created, retry or active). A queued or running run without one is lost:
   * nothing will ever move it (sql/lose-step.ts).
   */
  liveStepJobSql(r = "r"): string {
    return `exists (select 1 from ${BOSS_SCHEMA}.job j where j.name = '${STEP_QUEUE}'
      and j.state in ('created', 'retry', 'active') and j.data->>'runId' = ${r}.id::text
      and j.data->>'phase' = ${r}.phase and (j.data->>'index')::int = ${r}.current_step)`;
  }

  /** Worker crashes one step may take before its run fails (`queue.crash_limit`). */
  get crashLimit(): number {
    return this.cfg.crash_limit ?? 3;
  }

  /**
   * Makes the queue if it is missing. A dead letter queue is the queue's own setting, not each
   * job's: pg-boss looks a job's dead letter queue up on send, outside the transaction the job is
   * sent in, which on PGlite (one connection, held by that transaction) would wait forever.
   */
  async ensureQueue(name: string, opts: { deadLetter?: string } = {}): Promise<void> {
    const existing = await this.boss.getQueue(name);
    if (!existing) {
      try {
        await this.boss.createQueue(name, { notify: true, heartbeatSeconds: this.heartbeat, ...opts });
      } catch (err) {
        // Another daemon created it at the same moment.
        if (!(await this.boss.getQueue(name))) throw err;
      }
    } else if (opts.deadLetter && existing.deadLetter !== opts.deadLetter) {
      // A queue made by an older clipd, before it had one.
      await this.boss.updateQueue(name, { deadLetter: opts.deadLetter });
    }
  }

  async sendStep(job: StepJob, opts: StepJobOptions): Promise<string | null> {
    return this.boss.send(STEP_QUEUE, job as unknown as object, {
      // pg-boss counts a worker's death (heartbeat lost, expired) as a retry too. The runner keeps
      // its own counts (step errors against the YAML limit, crashes against crash_limit) and fails
      // the run itself; the queue's limit is only the backstop past both, with one spare for a
      // crash before the step was marked running (which the runner cannot see).
      retryLimit: opts.retryLimit + this.crashLimit + 1,
      retryDelay: Math.max(0, Math.round(opts.retryDelay)),
      retryBackoff: opts.retryBackoff,
      expireInSeconds: Math.max(1, Math.ceil(opts.timeoutSeconds + 60)),
      heartbeatSeconds: this.heartbeat,
      startAfter: opts.startAfterSeconds,
      db: opts.tx ? toBossDb(opts.tx) : undefined,
    });
  }

  /** Sends a job to one of the daemon's own queues (made with ensureQueue first). */
  async send(name: string, data: object, opts: SendOptions = {}): Promise<string | null> {
    return this.boss.send(name, data, {
      retryLimit: opts.retryLimit ?? 2,
      retryDelay: opts.retryDelay ?? 1,
      expireInSeconds: Math.max(1, Math.ceil(opts.expireInSeconds ?? 60)),
      startAfter:
        opts.startAfterSeconds && opts.startAfterSeconds > 0 ? Number(opts.startAfterSeconds.toFixed(3)) : undefined,
      singletonKey: opts.singletonKey,
      db: opts.tx ? toBossDb(opts.tx) : undefined,
    });
  }

  /** Sends a job to `name` on a cron (UTC), once across all daemons (pg-boss schedule). */
  async schedule(name: string, cron: string, data: object = {}): Promise<void> {
    await this.boss.schedule(name, cron, data, { tz: "UTC" });
  }

  /** Works one of the daemon's own queues with `concurrency` slots; a handler that throws is retried by the queue. */
  async work<T extends object>(
    name: string,
    handler: (data: T, job: Job<T>) => Promise<void>,
    opts: { concurrency?: number } = {},
  ): Promise<void> {
    this.worked.add(name);
    const slots = Math.max(1, opts.concurrency ?? this.cfg.concurrency);
    for (let i = 0; i < slots; i++) {
      let id: string | undefined = undefined;
      id = await this.boss.work<T>(
        name,
        {
          localConcurrency: 1,
          batchSize: 1,
          pollingIntervalSeconds: this.cfg.poll_seconds,
          notifyPollingIntervalSeconds: this.cfg.notify_poll_seconds,
        },
        async ([job]) => {
          try {
            await handler(job!.data, job!);
          } finally {
            if (id) this.boss.notifyWorker(id);
          }
        },
      );
    }
  }

  /**
   * One pg-boss worker per concurrency slot. Each asks for its next job as soon as it finishes one
   * (notifyWorker), so a backlog drains without waiting out the poll interval between jobs; only an
   * empty fetch waits.
   */
  async workSteps(handler: StepHandler, opts: { concurrency?: number } = {}): Promise<void> {
    const slots = Math.max(1, opts.concurrency ?? this.cfg.concurrency);
    for (let i = 0; i < slots; i++) {
      let id: string | undefined = undefined;
      id = await this.boss.work<StepJob>(
        STEP_QUEUE,
        {
          localConcurrency: 1,
          batchSize: 1,
          pollingIntervalSeconds: this.cfg.poll_seconds,
          notifyPollingIntervalSeconds: this.cfg.notify_poll_seconds,
        },
        async ([job]) => {
          this.active++;
          try {
            await handler(job!);
          } finally {
            this.active--;
            if (id) this.boss.notifyWorker(id);
          }
        },
      );
    }
  }

  async stopWorking(): Promise<void> {
    await this.boss.offWork(STEP_QUEUE, { wait: false }).catch(() => {});
    for (const name of this.worked) await this.boss.offWork(name, { wait: false }).catch(() => {});
  }

  /** Jobs currently claimed by this process. */
  activeLocal(): number {
    return this.active;
  }

  /** Every queue's jobs by state, for the metrics scrape. */
  async depths(): Promise<Array<{ name: string; queued: number; active: number; deferred: number }>> {
    const queues = await this.boss.getQueues();
    return queues.map((q) => ({
      name: q.name,
      queued: q.queuedCount ?? 0,
      active: q.activeCount ?? 0,
      deferred: q.deferredCount ?? 0,
    }));
  }

  async counts(): Promise<{ queued: number; active: number }> {
    const q = await this.boss.getQueue(STEP_QUEUE);
    return { queued: q?.queuedCount ?? 0, active: q?.activeCount ?? 0 };
  }

  async stop(opts: { graceSeconds?: number } = {}): Promise<void> {
    await this.boss.stop({ graceful: true, close: true, timeout: Math.max(1000, (opts.graceSeconds ?? 0) * 1000) });
  }
}
