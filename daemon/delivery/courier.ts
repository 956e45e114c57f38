/**
 * The one courier: a signed POST queued in the caller's transaction, delivered on pg-boss with the
 * retry plan of its kind, every attempt recorded in delivery_attempts (migration 013). Account
 * webhooks (account/webhooks.ts) and free-API callbacks (free/courier.ts) are its two kinds; they
 * import this module, never the other way round, and bring what differs between them as a
 * DeliveryKind: the queue, the retry plan, where a delivery goes and who signs it, and any rule
 * of their own after an attempt (a webhook's switch-off).
 *
 * Guarantees, the same for every kind:
 * - A delivery row and its first job commit together with the caller's change (enqueue takes the
 *   caller's transaction), so one is never lost nor sent for a change that rolled back.
 * - An attempt runs only while its delivery still waits for exactly that attempt, and a claim that
 *   lapses after the timeout keeps two workers from sending it at once; a worker killed mid-attempt
 *   loses its claim and the queue runs the job again.
 * - The attempt's record, the delivery's new state and the next attempt's delayed job commit in one
 *   transaction, so a pending retry survives a crash or a restart and runs on any worker.
 * - Every attempt carries the delivery id as webhook-id, so receivers can drop duplicates.
 */
import { metrics } from "../ops/metrics.js";
import { randomUUID } from "node:crypto";
import type { Config } from "../../config/loader.js";
import type { QueueManager } from "../engine/queue.js";
import { netguardOptionsFromConfig } from "../net/guard.js";
import type { Db, Queryable } from "../store/db.js";
import { isoColumn } from "../store/_columns.js";
import { postSigned, type PostResult } from "./signed-post.js";

/** Where an attempt goes and the secrets that sign it, read again at every attempt. */
export interface Target {
  url: string;
  secrets: string[];
}

/** A deliveries row as the database returns it (kind-specific columns included). */
// biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
export type DeliveryRow = Record<string, any> & { id: string; kind: string; payload: string; url: string | null };

/** What one kind of delivery brings to the courier. */
export interface DeliveryKind {
  /** Stored in deliveries.kind (the migration's check lists the kinds). */
  kind: string;
  /** Its own pg-boss queue, so each kind keeps its concurrency and jobs queued before 013 still run. */
  queue: string;
  /** Seconds from failed attempt n to attempt n + 1 (index n - 1); past the end the delivery fails. */
  retrySeconds: readonly number[];
  /** Multiplies every retry delay (tests); read at each attempt, so a changed config applies. */
  timeScale(): number;
  /** How long an attempt waits for the answer. */
  timeoutMs(): number;
  userAgent: string;
  /** How much of an answer the attempt record keeps; 0 keeps none. */
  responseBytes: number;
  /** The target now; a string says why the delivery fails without an attempt, undefined drops it
   * (its owner is gone). */
  target(q: Queryable, d: DeliveryRow): Promise<Target | string | undefined>;
  /** The kind's own rule, in the transaction that records attempt n; true stops the retries. */
  afterAttempt?(tx: Queryable, d: DeliveryRow, result: PostResult, n: number): Promise<boolean>;
}

/** The columns a new delivery sets besides its payload: the kind's references (webhook_id, job_id…). */
export interface NewDelivery {
  id?: string;
  payload: string;
  refs?: Record<string, unknown>;
}

export interface AttemptRecord {
  attempt: number;
  at: string;
  status_code: number | null;
  latency_ms: number;
  response: string | null;
  error: string | null;
}

export interface CourierDeps {
  db: Db;
  queue: QueueManager;
  config: Config;
}

/** Column names come from the kinds' code, never from a request; this keeps a typo from reaching SQL. */
const COLUMN = /^[a-z_]+$/;

function jobOptions(kind: DeliveryKind) {
  // A worker that dies mid-attempt loses its heartbeat; the queue then runs the job again.
  return { retryLimit: 5, retryDelay: 5, expireInSeconds: Math.ceil(kind.timeoutMs() / 1000) + 30 };
}

/**
 * Records a delivery and queues its first attempt inside the caller's transaction. Returns its id,
 * or null when a unique reference says it exists already (one webhook delivery per address and event).
 */
export async function enqueue(
  tx: Queryable,
  queue: QueueManager,
  kind: DeliveryKind,
  d: NewDelivery,
): Promise<string | null> {
  const id = await insertDelivery(tx, kind, d, "on conflict do nothing");
  if (id) await queue.send(kind.queue, { deliveryId: id, attempt: 1 }, { tx, ...jobOptions(kind) });
  return id;
}

/** Inserts a deliveries row with the kind's references; null when the tail (a conflict clause) skipped it. */
async function insertDelivery(q: Queryable, kind: DeliveryKind, d: NewDelivery, tail = ""): Promise<string | null> {
  const refs = d.refs ?? {};
  const cols = ["id", "kind", "payload", ...Object.keys(refs)];
  if (!cols.every((c) => COLUMN.test(c))) throw new Error(`bad delivery column in ${cols.join(", ")}`);
  const { rows } = await q.query(
    `insert into deliveries (${cols.join(", ")}) values (${cols.map((_, i) => `$${i + 1}`).join(", ")}) ` +
      `${tail} returning id`,
    [d.id ?? randomUUID(), kind.kind, d.payload, ...Object.values(refs)],
  );
  return rows[0]?.id ?? null;
}

/** Works a kind's queue. Jobs queued before migration 013 by the free tool name the id callbackId. */
export async function work(deps: CourierDeps, kind: DeliveryKind, concurrency: number): Promise<void> {
  await deps.queue.work<{ deliveryId?: string; callbackId?: string; attempt: number }>(
    kind.queue,
    (j) => attempt(deps, kind, (j.deliveryId ?? j.callbackId)!, j.attempt),
    { concurrency },
  );
}

/** Runs attempt `n` of a delivery, if the delivery still waits for it. */
export async function attempt(deps: CourierDeps, kind: DeliveryKind, id: string, n: number): Promise<void> {
  const { db } = deps;
  const { rows } = await db.query(
    `update deliveries set claimed_attempt = $3, claimed_until = now() + make_interval(secs => $4)
      where id = $1 and kind = $2 and status = 'pending' and attempts = $3 - 1 and (claimed_attempt is distinct from $3 or claimed_until < now())
      returning *`,
    [id, kind.kind, n, kind.timeoutMs() / 1000 + 5],
  );
  if (!rows[0]) {
    const held = await db.query(
      `select 1 from deliveries where id = $1 and kind = $2 and status = 'pending' and attempts = $3 - 1`,
      [id, kind.kind, n],
    );
    // the queue tries again later
    if (held.rows.length) throw new Error(`attempt ${n} of delivery ${id} is in flight on another worker`);
    return; // done, or a stale duplicate
  }
  const d = rows[0] as DeliveryRow;
  const target = await kind.target(db, d);
  if (target === undefined) return;
  if (typeof target === "string") {
    await db.query(
      `update deliveries set status = 'failed', last_error = $2, claimed_attempt ` +
        `= null, finished_at = now() where id = $1`,
      [id, target],
    );
    return;
  }
  const result = await post(deps, kind, target, id, d.payload);
  await db.transaction(async (tx) => {
    if (!(await recordAttempt(tx, kind, id, n, result))) return; // recorded by another worker
    const stop = (await kind.afterAttempt?.(tx, d, result, n)) ?? false;
    if (result.ok) {
      await tx.query(
        `update deliveries set status = 'delivered', attempts = $2, claimed_attempt ` +
          `= null, last_error = null, finished_at = now() where id = $1`,
        [id, n],
      );
      return;
    }
    const wait = kind.retrySeconds[n - 1];
    if (stop || wait === undefined) {
      await tx.query(
        `update deliveries set status = 'failed', attempts = $2, claimed_attempt ` +
          `= null, last_error = $3, finished_at = now() where id = $1`,
        [id, n, result.error],
      );
      return;
    }
    const delay = wait * kind.timeScale();
    await tx.query(
      `update deliveries set attempts = $2, claimed_attempt = null, last_error ` +
        `= $3, next_attempt_at = now() + make_interval(secs => $4) where id = $1`,
      [id, n, result.error, delay],
    );
    await deps.queue.send(
      kind.queue,
      { deliveryId: id, attempt: n + 1 },
      { tx, startAfterSeconds: delay, ...jobOptions(kind) },
    );
  });
}

/**
 * One attempt at once, recorded like any other, with no retry and no kind rule after it (a webhook's
 * test send). The delivery row is claimed from the start, so no queued job can take it.
 */
export async function sendNow(
  deps: CourierDeps,
  kind: DeliveryKind,
  d: NewDelivery,
  target: Target,
): Promise<{ id: string; result: PostResult }> {
  const id = (await insertDelivery(deps.db, kind, { ...d, refs: { ...d.refs, claimed_attempt: 1 } }))!;
  const result = await post(deps, kind, target, id, d.payload);
  await deps.db.transaction(async (tx) => {
    await recordAttempt(tx, kind, id, 1, result);
    await tx.query(
      `update deliveries set status = $2, attempts = 1, claimed_attempt = null, ` +
        `last_error = $3, finished_at = now() where id = $1`,
      [id, result.ok ? "delivered" : "failed", result.error],
    );
  });
  return { id, result };
}

/** The attempts of some deliveries, oldest first, by delivery id. */
export async function attemptsOf(q: Queryable, ids: string[]): Promise<Map<string, AttemptRecord[]>> {
  const out = new Map<string, AttemptRecord[]>(ids.map((id) => [id, []]));
  if (!ids.length) return out;
  const { rows } = await q.query(
    `select * from delivery_attempts where delivery_id = any($1::uuid[]) order by attempt`,
    [ids],
  );
  for (const a of rows) {
    out.get(a.delivery_id)?.push({
      attempt: a.attempt,
      at: isoColumn(a.at)!,
      status_code: a.status_code,
      latency_ms: a.latency_ms,
      response: a.response,
      error: a.error,
    });
  }
  return out;
}

/** Records attempt n; false when another worker recorded it first. */
async function recordAttempt(
  tx: Queryable,
  kind: DeliveryKind,
  id: string,
  n: number,
  r: PostResult,
): Promise<boolean> {
  const ins = await tx.query(
    `insert into delivery_attempts (delivery_id, attempt, at, status_code, latency_ms, response, error) values ($1, $2, $3, $4, $5, $6, $7)
     on conflict do nothing returning attempt`,
    [id, n, r.at, r.status_code, r.latency_ms, kind.responseBytes > 0 ? r.response : null, r.error],
  );
  return ins.rows.length > 0;
}

/** One signed POST; never throws (signed-post.ts). */
async function post(
  deps: CourierDeps,
  kind: DeliveryKind,
  target: Target,
  id: string,
  payload: string,
): Promise<PostResult> {
  const r = await _post(deps, kind, target, id, payload);
  metrics.delivery(r.ok ? "ok" : "failed", r.latency_ms / 1000);
  return r;
}

function _post(
  deps: CourierDeps,
  kind: DeliveryKind,
  target: Target,
  id: string,
  payload: string,
): Promise<PostResult> {
  return postSigned({
    url: target.url,
    msgId: id,
    payload,
    secrets: target.secrets,
    timeoutMs: kind.timeoutMs(),
    userAgent: kind.userAgent,
    net: netguardOptionsFromConfig(deps.config),
    responseBytes: kind.responseBytes,
  });
}
