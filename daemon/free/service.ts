/**
 * The free transcription tool (/api/v1/transcribe): optional `svc_free_` keys, daily limits, a
 * monthly budget, callbacks and retention. It reuses the `transcript` pipeline and its engines.
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
import { netguardOptionsFromConfig } from "../net/guard.js";
import { freeConfig, type FreeConfig } from "./config.js";
import { measureRemote, ProbeRefusal, type Measure } from "./probe.js";
import type { QueueManager } from "../engine/queue.js";
import { TERMINAL, type Run, type Runner } from "../engine/runner.js";
import type { Storage } from "../storage/storage.js";
import type { Db, Queryable } from "../store/db.js";
import { FREE_CALLBACK_QUEUE, queueCallback, workCallbacks } from "./courier.js";
import { FREE_RETENTION_QUEUE, sweepFree } from "./janitor.js";
import { authenticateFreeKey, issueFreeKey, revokeFreeKey } from "./keys.js";
import { Refused } from "../domain/errors.js";
import { checkAllowance, checkMeasure, maxSeconds, monthStart } from "./admission.js";
import { newSecret } from "../delivery/signed-post.js";
import { isoColumn } from "../store/_columns.js";
import { freeJobView, tierError } from "./view.js";

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
    const m = await this.measure(input.url, this.cfg);
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
    return this.deps.db.transaction(async (tx) => {
      const budget = (
        await tx.query(`select spent_cents, anon_spent_cents from free_budget where month = $1`, [monthStart()])
      ).rows[0];
      await checkAllowance(tx, this.cfg, who, { measured: true, cost: 0 }, budget);
    });
  }

  /**
   * Starts the job of a measured file (checkMeasure first): the daily limits, the budget, the job
   * row and the run's first job in one transaction holding the month's budget row, so the limits
   * hold across processes. `claim` runs first in that transaction (an upload taken once);
   * `audioKey` is a stored upload, the retention's to delete.
   */
  async admit(input: {
    id: string;
    tokenFp: string;
    url: string;
    source: Record<string, unknown>;
    m: Measure;
    keyId: string | null;
    clientAddr: string;
    callbackUrl?: string;
    audioKey?: string;
    claim?: (tx: Queryable) => Promise<void>;
  }): Promise<{ id: string; callback_secret?: string }> {
    const cfg = this.cfg;
    const { id, m } = input;
    const anon = input.keyId === null;
    const max = maxSeconds(cfg, anon);
    const secret = input.callbackUrl ? newSecret() : undefined;
    const cost = ((m.measured ? m.duration_seconds! : max) / 60) * cfg.cents_per_minute;
    const month = monthStart();
    await this.deps.db.transaction(async (tx) => {
      await input.claim?.(tx);
      await tx.query(`insert into free_budget (month) values ($1) on conflict (month) do nothing`, [month]);
      const budget = (
        await tx.query(`select spent_cents, anon_spent_cents from free_budget where month = $1 for update`, [month])
      ).rows[0];
      await checkAllowance(tx, cfg, input, { measured: m.measured, cost }, budget);
      await tx.query(
        `update free_budget set spent_cents = spent_cents + $2, anon_spent_cents ` +
          `= anon_spent_cents + $3 where month = $1`,
        [month, cost, anon ? cost : 0],
      );
      await tx.query(
        `insert into free_jobs (id, token_fp, key_id, client_addr, url, callback_url, callback_secret, measured, duration_seconds, size_bytes, cost_cents, audio_key)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          id,
          input.tokenFp,
          input.keyId,
          input.clientAddr,
          input.url,
          input.callbackUrl ?? null,
          secret ?? null,
          m.measured,
          m.duration_seconds ?? null,
          m.size_bytes ?? null,
          cost,
          input.audioKey ?? null,
        ],
      );
      const run = await this.deps.runner.startRun(
        "transcript",
        { ...input.source, free_job_id: id },
        {
          origin: "free",
          originRef: id,
          tx,
          set: {
            "fetch-source.max_bytes": cfg.max_bytes,
            "probe.max_seconds": max,
            "probe.max_bytes": cfg.max_bytes,
            "transcribe.language": cfg.language,
          },
        },
      );
      await tx.query(`update free_jobs set run_id = $2 where id = $1`, [id, run.id]);
    });
    return { id, ...(secret ? { callback_secret: secret } : {}) };
  }

  private async measure(url: string, cfg: FreeConfig): Promise<Measure> {
    try {
      return await measureRemote(url, {
        ...(await netguardOptionsFromConfig(this.deps.config)),
        probeBytes: cfg.probe_bytes,
      });
    } catch (caught) {
      const err = caught as NodeJS.ErrnoException;
      if (err instanceof ProbeRefusal)
        throw new Refused("unreadable", err.message, { context: { field: "url" }, cause: err });
      if (err?.code === "forbidden_address")
        throw new Refused(
          "forbidden_address",
          `body field "url": ${err.message}; only public addresses can be fetched`,
          { context: { field: "url" }, cause: err },
        );
      throw new Refused("unreadable", `body field "url" could not be read: ${err?.message ?? err}`, {
        context: { field: "url" },
        cause: err,
      });
    }
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

  /** Moves the job of an ended run to completed (no_speech included) or failed. Idempotent. */
  async settle(tx: Queryable, run: Run): Promise<void> {
    if (run.pipeline !== "transcript" || !run.input?.free_job_id || !TERMINAL.has(run.state)) return;
    const { rows } = await tx.query(`select * from free_jobs where id = $1 and run_id = $2 for update`, [
      run.input.free_job_id,
      run.id,
    ]);
    const row = rows[0];
    if (!row || row.status !== "queued") return;
    // A download's audio is the run's source; an upload's was noted when it was admitted.
    const audioKey = run.output?.source?.key ?? row.audio_key ?? null;
    let seconds = row.duration_seconds === null ? null : Number(row.duration_seconds);
    if (run.state === "succeeded") {
      // biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
      const t = (run.output.transcript ?? {}) as Record<string, any>;
      seconds = Number(t.duration ?? run.output.media?.duration ?? seconds ?? 0);
      const result = {
        files: t.files,
        language: t.language ?? null,
        language_source: t.language_source ?? null,
        word_count: t.word_count ?? 0,
        engine: t.engine,
      };
      await tx.query(
        `update free_jobs set status = 'completed', duration_seconds = $2, result ` +
          `= $3, audio_key = $4, finished_at = now() where id = $1`,
        [row.id, seconds, JSON.stringify(result), audioKey],
      );
    } else if (run.error?.code === "no_speech") {
      seconds = Number(run.output?.media?.duration ?? seconds ?? 0);
      await tx.query(
        `update free_jobs set status = 'completed', code = 'no_speech', duration_seconds ` +
          `= $2, result = $3, audio_key = $4, finished_at = now() where id = $1`,
        [row.id, seconds, JSON.stringify({ language: null, word_count: 0 }), audioKey],
      );
    } else {
      const error = tierError(
        run.error ?? { code: "cancelled", message: "the transcription was cancelled" },
        row,
        this.cfg,
      );
      await tx.query(
        `update free_jobs set status = 'failed', code = $2, error = $3, audio_key ` +
          `= $4, finished_at = now() where id = $1`,
        [row.id, error.code, JSON.stringify(error), audioKey],
      );
    }
    // The real cost replaces the reservation (a failed job before transcription costs nothing).
    const real =
      run.state === "succeeded" || run.error?.code === "no_speech"
        ? ((seconds ?? 0) / 60) * this.cfg.cents_per_minute
        : 0;
    const delta = real - Number(row.cost_cents);
    await tx.query(`update free_jobs set cost_cents = $2 where id = $1`, [row.id, real]);
    await tx.query(
      `update free_budget set spent_cents = spent_cents + $2, anon_spent_cents ` +
        `= anon_spent_cents + $3 where month = $1`,
      [monthStart(new Date(isoColumn(row.created_at)!)), delta, row.key_id ? 0 : delta],
    );
    if (row.callback_url) {
      const settled = (await tx.query(`select * from free_jobs where id = $1`, [row.id])).rows[0];
      const data = await this.view(settled);
      const type = data.status === "failed" ? "transcription.failed" : "transcription.completed";
      const payload = JSON.stringify({ type, timestamp: new Date().toISOString(), data });
      await queueCallback(tx, this.deps.queue, { jobId: row.id, url: row.callback_url, payload });
    }
  }
}
