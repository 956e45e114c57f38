/**
 * The free tool's callbacks: the finished result or the failure, POSTed to the job's callback_url
 * and signed per Standard Webhooks with the job's own secret (given once, in the 202 answer).
 *
 * Guarantees: a callback is queued in the transaction that settles its job, so it is never lost
 * nor sent for a job that did not end; each attempt is recorded; a failed one is retried after
 * CALLBACK_RETRY_SECONDS (scaled by free.callback_time_scale), and every retry carries the same
 * webhook-id so receivers can drop duplicates. Polling works whatever the callback does.
 */
import { randomUUID } from "node:crypto";
import type { Config } from "../../config/loader.js";
import { netguardOptionsFromConfig } from "../net/guard.js";
import { freeConfig } from "./config.js";
import type { QueueManager } from "../engine/queue.js";
import type { Db, Queryable } from "../store/db.js";
import { postSigned } from "../delivery/signed-post.js";

export const FREE_CALLBACK_QUEUE = "clipd-free-callback";
/** Seconds from a failed callback to the next attempt (times free.callback_time_scale). */
export const CALLBACK_RETRY_SECONDS = [30, 120, 600, 1800, 3600];

export interface CourierDeps {
  db: Db;
  queue: QueueManager;
  config: Config;
}

/** Records a callback and queues its first attempt, inside the caller's transaction. */
export async function queueCallback(tx: Queryable, queue: QueueManager, cb: { jobId: string; url: string; payload: string }): Promise<void> {
  const callbackId = randomUUID();
  await tx.query(`insert into free_callbacks (id, job_id, url, payload) values ($1, $2, $3, $4)`, [callbackId, cb.jobId, cb.url, cb.payload]);
  await queue.send(FREE_CALLBACK_QUEUE, { callbackId, attempt: 1 }, { tx, retryLimit: 3, retryDelay: 5, expireInSeconds: 60 });
}

/** Attempt `n` of a callback; a failure schedules the next one until CALLBACK_RETRY_SECONDS runs out. */
export async function attemptCallback(deps: CourierDeps, callbackId: string, n: number): Promise<void> {
  const { rows } = await deps.db.query(
    `select c.*, j.callback_secret from free_callbacks c join free_jobs j on j.id = c.job_id where c.id = $1 and c.status = 'pending' and c.attempts = $2 - 1`,
    [callbackId, n],
  );
  const c = rows[0];
  if (!c) return; // delivered, given up, or a stale duplicate
  const error = await post(deps, c.url, c.id, c.payload, c.callback_secret);
  await deps.db.transaction(async (tx) => {
    if (!error) {
      await tx.query(`update free_callbacks set status = 'delivered', attempts = $2, last_error = null, finished_at = now() where id = $1`, [c.id, n]);
      return;
    }
    const wait = CALLBACK_RETRY_SECONDS[n - 1];
    if (wait === undefined) {
      await tx.query(`update free_callbacks set status = 'failed', attempts = $2, last_error = $3, finished_at = now() where id = $1`, [c.id, n, error]);
      return;
    }
    await tx.query(`update free_callbacks set attempts = $2, last_error = $3 where id = $1`, [c.id, n, error]);
    await deps.queue.send(FREE_CALLBACK_QUEUE, { callbackId: c.id, attempt: n + 1 }, { tx, startAfterSeconds: wait * freeConfig(deps.config).callback_time_scale, retryLimit: 3, retryDelay: 5, expireInSeconds: 60 });
  });
}

/** One signed POST with the job's secret; the error text, or null when the address answered 2xx. */
async function post(deps: CourierDeps, url: string, msgId: string, payload: string, secret: string): Promise<string | null> {
  const net = netguardOptionsFromConfig(deps.config);
  const res = await postSigned({ url, msgId, payload, secrets: [secret], timeoutMs: 10_000, userAgent: "clipd-free-callbacks", net });
  return res.error;
}
