/**
 * The free transcription tool (/api/v1/transcribe): optional `svc_free_` keys, daily limits, a
 * monthly budget, callbacks and retention. It reuses the `transcript` pipeline and its engines.
 * This class wires the tool together and answers polls; admission's transaction lives in
 * daemon/free/intake.ts and the end of a job in daemon/free/settle.ts.
 *
 * Guarantees:
 * - A file's length is read from its server (daemon/free/probe.ts) before anything is counted or
 *   spent; too long, too big and unreadable links leave no trace.
 * - Admission is one transaction holding the month's budget row: the daily counts, the budget
 *   check, the job row and the run's first job commit together, so the limits hold across any
 *   number of facade processes.
 * - A job is settled by a runner.onRunEnd hook in the transaction that ends its run (result, real
 *   cost and the callback delivery together); a poll settles a job whose run ended without it.
 * - Callbacks (daemon/free/courier.ts) are queued in that same transaction, signed with the job's
 *   own secret and retried; polling works whatever the callback does.
 * - Retention (daemon/free/janitor.ts) runs on a daily pg-boss schedule; a poll of an expired job
 *   answers 404 `expired`.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { Logger } from "pino";
import type { Config } from "../../config/loader.js";
import { freeConfig, type FreeConfig } from "./config.js";
import type { QueueManager } from "../engine/queue.js";
import { TERMINAL, type Run, type Runner } from "../engine/runner.js";
import type { Storage } from "../storage/storage.js";
import type { Db, Queryable } from "../store/db.js";
import { FREE_CALLBACK_QUEUE, workCallbacks } from "./courier.js";
import { FREE_RETENTION_QUEUE, sweepFree } from "./janitor.js";
import { authenticateFreeKey, issueFreeKey, revokeFreeKey } from "./keys.js";
import { checkMeasure } from "./admission.js";
import { freeJobView } from "./view.js";
import { admitFreeJob, measureLink, precheckFree, type FreeAdmission } from "./intake.js";
import { settleFreeJob } from "./settle.js";

export interface FreeDeps {
  db: Db;
  runner: Runner;
  queue: QueueManager;
  storage: Storage;
  config: Config;
  log: Logger;
}

export type FreeLinker = (
  file: { key: string; name: string; type?: string; until?: Date },
  origin?: string,
) => { url: string; expires_at: string };

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

export class FreeService {
  private linker: FreeLinker | undefined;
  /** Origin for links in callbacks when server.public_url is unset: the first request's. */
  private origin: string | undefined;
  private registered = false;
  private prepared: Promise<void> | undefined;

  constructor(private readonly deps: FreeDeps) {}

  get cfg(): FreeConfig {
    return freeConfig(this.deps.config);
  }

  /** Signs result links; given once by the composition root of a process that can sign. */
  setLinker(fn: FreeLinker): void {
    this.linker ??= fn;
  }

  /** Where links point when server.public_url is unset: the origin of the first request seen. */
  noteOrigin(origin: string | undefined): void {
    this.origin ??= origin;
  }

  /** Settles free jobs in the transaction that ends their run. Safe to call more than once. */
  register(): void {
    if (this.registered) return;
    this.registered = true;
    this.deps.runner.onRunEnd((tx, run) => this.settle(tx, run));
  }

  /** Registers the hook, makes the queues and the daily retention schedule. Idempotent. */
  prepare(): Promise<void> {
    this.register();
    this.prepared ??= (async () => {
      await this.deps.queue.ensureQueue(FREE_CALLBACK_QUEUE);
      await this.deps.queue.ensureQueue(FREE_RETENTION_QUEUE);
      await this.deps.queue.schedule(FREE_RETENTION_QUEUE, this.cfg.retention_cron);
    })();
    return this.prepared;
  }

  /** Works callbacks and the retention job (worker role). */
  async work(): Promise<void> {
    await this.prepare();
    await workCallbacks(this.deps, 2);
    await this.deps.queue.work<object>(FREE_RETENTION_QUEUE, async () => void (await sweepFree(this.deps)), {
      concurrency: 1,
    });
  }

  // ---- keys (daemon/free/keys.ts) ------------------------------------------------------------

  issueKey(email: string): Promise<string> {
    return issueFreeKey(this.deps.db, this.cfg, email);
  }

  authenticate(token: string): Promise<string> {
    return authenticateFreeKey(this.deps.db, token);
  }

  revokeKey(token: string): Promise<{ revoked_at: string }> {
    return revokeFreeKey(this.deps.db, token);
  }

  // ---- jobs -----------------------------------------------------------------------------------

  /**
   * Measures the file, applies every limit and starts the job. Throws the refusals of daemon/domain/errors.ts (Refused,
   * LimitReached).
   */
  async submit(input: {
    url: string;
    callbackUrl?: string;
    keyId: string | null;
    clientAddr: string;
  }): Promise<{ id: string; token: string; callback_secret?: string }> {
    const m = await measureLink(this.deps.config, input.url, this.cfg);
    checkMeasure(this.cfg, m, input.keyId === null);
    const token = randomBytes(24).toString("base64url");
    const job = await this.admit({
      ...input,
      id: randomUUID(),
      tokenFp: sha(token),
      m,
      source: { source_url: input.url },
    });
    return { id: job.id, token, ...(job.callback_secret ? { callback_secret: job.callback_secret } : {}) };
  }

  /**
   * Whether today's files and the month's budget leave room for one more file, before it is uploaded (no lock: admit
   * decides).
   */
  precheck(who: { keyId: string | null; clientAddr: string }): Promise<void> {
    return precheckFree(this.deps.db, this.cfg, who);
  }

  /** Starts the job of a measured file (checkMeasure first), in one transaction: intake.ts. */
  admit(input: FreeAdmission): Promise<{ id: string; callback_secret?: string }> {
    return admitFreeJob(this.deps, this.cfg, input);
  }

  /** The job when `token` is its poll token (else undefined), settled if its run has ended. */
  // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
  async get(id: string, token: string | undefined): Promise<any | undefined> {
    const { rows } = await this.deps.db.query(
      `select j.*, r.state as run_state from free_jobs j left join runs r on r.id = j.run_id where j.id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row || !token || !timingSafeEqual(Buffer.from(sha(token), "hex"), Buffer.from(row.token_fp, "hex")))
      return undefined;
    if (row.status === "queued" && row.run_id && TERMINAL.has(row.run_state)) {
      await this.deps.db.transaction(async (tx) => {
        const run = await this.deps.runner.getRun(row.run_id, tx);
        if (run) await this.settle(tx, run);
      });
      return (await this.deps.db.query(`select * from free_jobs where id = $1`, [id])).rows[0];
    }
    return row;
  }

  /** The poll answer (also the callback's data): view.ts. */
  // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
  view(row: any, origin = this.origin): Promise<Record<string, unknown>> {
    const link = this.linker && ((file: { key: string; name: string; type: string }) => this.linker!(file, origin).url);
    const audioLink = this.linker && ((file: { key: string; name: string; until: Date }) => this.linker!(file, origin));
    return freeJobView(row, {
      storage: this.deps.storage,
      inlineMaxBytes: this.cfg.inline_max_bytes,
      link,
      audioLink,
      audioDays: this.cfg.audio_retention_days,
      clockOffsetSeconds: this.cfg.clock_offset_seconds,
    });
  }

  /** Moves the job of an ended run to completed (no_speech included) or failed. Idempotent: settle.ts. */
  settle(tx: Queryable, run: Run): Promise<void> {
    return settleFreeJob({ queue: this.deps.queue, config: this.deps.config, view: (row) => this.view(row) }, tx, run);
  }
}
