/**
 * The free tool's callbacks: the finished result or the failure, POSTed to the job's callback_url
 * and signed per Standard Webhooks with the job's own secret (given once, in the 202 answer).
 *
 * This file only says what a free callback is to the one courier (daemon/delivery/courier.ts), which
 * queues, sends, retries and records it. Guarantees: a callback is queued in the transaction that
 * settles its job, so it is never lost nor sent for a job that did not end; each attempt is recorded
 * (delivery_attempts); a failed one is retried after CALLBACK_RETRY_SECONDS (scaled by
 * free.callback_time_scale), and every retry carries the same webhook-id so receivers can drop
 * duplicates. Polling works whatever the callback does.
 */
import type { Config } from "../../config/loader.js";
import { freeConfig } from "./config.js";
import type { QueueManager } from "../engine/queue.js";
import type { Db, Queryable } from "../store/db.js";
import * as courier from "../delivery/courier.js";

/** The queue name from before the one courier, kept so callbacks queued then still run. */
export const FREE_CALLBACK_QUEUE = "clipd-free-callback";
/** Seconds from a failed callback to the next attempt (times free.callback_time_scale). */
export const CALLBACK_RETRY_SECONDS = [30, 120, 600, 1800, 3600];

export interface CourierDeps {
  db: Db;
  queue: QueueManager;
  config: Config;
}

/** A free callback as the courier sees it. The config is read at each attempt (time scale). */
export function freeCallbacks(config?: Config): courier.DeliveryKind {
  return {
    kind: "free_callback",
    queue: FREE_CALLBACK_QUEUE,
    retrySeconds: CALLBACK_RETRY_SECONDS,
    timeScale: () => (config ? freeConfig(config).callback_time_scale : 1),
    timeoutMs: () => 10_000,
    userAgent: "clipd-free-callbacks",
    // The receiver's answer is of no use to anyone: free jobs have no delivery log to show.
    responseBytes: 0,
    async target(q, d) {
      const { rows } = await q.query(`select callback_secret from free_jobs where id = $1`, [d.job_id]);
      return rows[0] ? { url: d.url!, secrets: [rows[0].callback_secret] } : undefined;
    },
  };
}

/** Records a callback and queues its first attempt, inside the caller's transaction. */
export async function queueCallback(
  tx: Queryable,
  queue: QueueManager,
  cb: { jobId: string; url: string; payload: string },
): Promise<void> {
  await courier.enqueue(tx, queue, freeCallbacks(), { payload: cb.payload, refs: { job_id: cb.jobId, url: cb.url } });
}

/** Attempt `n` of a callback; a failure schedules the next one until CALLBACK_RETRY_SECONDS runs out. */
export async function attemptCallback(deps: CourierDeps, callbackId: string, n: number): Promise<void> {
  await courier.attempt(deps, freeCallbacks(deps.config), callbackId, n);
}

/** Works the callback queue (worker role); jobs queued before the one courier still run. */
export async function workCallbacks(deps: CourierDeps, concurrency = 2): Promise<void> {
  await courier.work(deps, freeCallbacks(deps.config), concurrency);
}
