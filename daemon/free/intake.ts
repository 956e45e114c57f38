/**
 * Taking a free job in: reading the link's length and size (daemon/free/probe.ts), the unlocked
 * precheck before an upload, and the one admission transaction that starts the job's run. The
 * limits themselves are admission.ts's; this file holds the transaction they run in, kept apart
 * from FreeService so the service stays the tool's wiring and its poll.
 */
import type { Config } from "../../config/loader.js";
import { netguardOptionsFromConfig } from "../net/guard.js";
import type { FreeConfig } from "./config.js";
import { measureRemote, ProbeRefusal, type Measure } from "./probe.js";
import type { Runner } from "../engine/runner.js";
import type { Db, Queryable } from "../store/db.js";
import { Refused } from "../domain/errors.js";
import { checkAllowance, maxSeconds, monthStart } from "./admission.js";
import { newSecret } from "../delivery/signed-post.js";

/** What admission needs of the service's dependencies. */
export interface IntakeDeps {
  db: Db;
  runner: Runner;
}

/** A measured file about to become a job (FreeService.admit). */
export interface FreeAdmission {
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
}

/** Reads the link's length and size; every failure becomes a Refused naming the `url` field. */
export async function measureLink(config: Config, url: string, cfg: FreeConfig): Promise<Measure> {
  try {
    return await measureRemote(url, {
      ...(await netguardOptionsFromConfig(config)),
      probeBytes: cfg.probe_bytes,
    });
  } catch (caught) {
    const err = caught as NodeJS.ErrnoException;
    if (err instanceof ProbeRefusal)
      throw new Refused("unreadable", err.message, { context: { field: "url" }, cause: err });
    if (err?.code === "forbidden_address")
      throw new Refused("forbidden_address", `body field "url": ${err.message}; only public addresses can be fetched`, {
        context: { field: "url" },
        cause: err,
      });
    throw new Refused("unreadable", `body field "url" could not be read: ${err?.message ?? err}`, {
      context: { field: "url" },
      cause: err,
    });
  }
}

/**
 * Whether today's files and the month's budget leave room for one more file, before it is uploaded (no lock: admit
 * decides).
 */
export function precheckFree(
  db: Db,
  cfg: FreeConfig,
  who: { keyId: string | null; clientAddr: string },
): Promise<void> {
  return db.transaction(async (tx) => {
    const budget = (
      await tx.query(`select spent_cents, anon_spent_cents from free_budget where month = $1`, [monthStart()])
    ).rows[0];
    await checkAllowance(tx, cfg, who, { measured: true, cost: 0 }, budget);
  });
}

/**
 * Starts the job of a measured file (checkMeasure first): the daily limits, the budget, the job
 * row and the run's first job in one transaction holding the month's budget row, so the limits
 * hold across processes. `claim` runs first in that transaction (an upload taken once);
 * `audioKey` is a stored upload, the retention's to delete.
 */
export async function admitFreeJob(
  deps: IntakeDeps,
  cfg: FreeConfig,
  input: FreeAdmission,
): Promise<{ id: string; callback_secret?: string }> {
  const { id, m } = input;
  const anon = input.keyId === null;
  const max = maxSeconds(cfg, anon);
  const secret = input.callbackUrl ? newSecret() : undefined;
  const cost = ((m.measured ? m.duration_seconds! : max) / 60) * cfg.cents_per_minute;
  const month = monthStart();
  await deps.db.transaction(async (tx) => {
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
    const run = await deps.runner.startRun(
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
