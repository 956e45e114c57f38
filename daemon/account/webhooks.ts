/**
 * Webhooks: an account's addresses, the fan-out of its events, and signed delivery with retries.
 *
 * Guarantees:
 * - An event committed by recordEvent (events.ts) has a fan-out job committed with it; fan-out makes
 *   one delivery row per subscribed, enabled address (at most once: unique per address and event)
 *   and enqueues its first attempt in the same transaction.
 * - Each attempt is a pg-boss job. A failed attempt is recorded and its retry enqueued (delayed,
 *   startAfter) in one transaction, so a pending retry survives a crash or restart and runs on any
 *   worker. An attempt runs only if its delivery still waits for exactly that attempt, and a claim
 *   keeps two workers from sending the same attempt at once.
 * - Every attempt is a signed POST (signed-post.ts: Standard Webhooks headers, webhook-id is the
 *   delivery id, one signature per live secret during a rotation), to an address checked again at
 *   every attempt; redirects are not followed; only a 2xx within `webhooks.timeout_ms` succeeds.
 * - Retries after 1, 5, 30 and 60 minutes, then 2, 4, 8 and 9.4 hours (25 hours in all), each times
 *   `webhooks.time_scale`. An address whose failures have gone on for `disable_after_hours` is
 *   switched off (enabled: false) until the account switches it on again.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Config } from "../../config/loader.js";
import { netguardOptionsFromConfig } from "../net/guard.js";
import { checkPublicUrl } from "../net/public-url.js";
import { AccountError } from "./accounts.js";
import { FANOUT_QUEUE, WEBHOOK_EVENT_TYPES, type EventLink } from "../engine/events.js";
import type { QueueManager } from "../engine/queue.js";
import { newSecret, postSigned, type PostResult } from "../delivery/signed-post.js";
import { transactionWith, type Db, type Queryable, type Within } from "../store/db.js";
import { isoColumn, jsonColumn } from "../store/_columns.js";

export const DELIVERY_QUEUE = "clipd-webhook-delivery";
/** Minutes from a failed attempt to the next one; 9 attempts spanning 25 hours. */
export const RETRY_MINUTES = [1, 5, 30, 60, 120, 240, 480, 564];
export const MAX_WEBHOOKS = 5;
/** How long a replaced secret keeps signing after a rotation. */
export const ROTATION_GRACE_SECONDS = 24 * 3600;
const RESPONSE_BYTES = 1024;

/** A refusal in the API's envelope (mapped by facade/errors.ts like every AccountError). */
export class WebhookError extends AccountError {}

/** Turns a stored file into a signed link; given by the process that can sign (daemon/roles.ts). */
export type Linker = (file: EventLink) => { url: string; expires_at: string };

interface Secret {
  secret: string;
  expires_at: string | null;
}
interface WebhookRow {
  id: string;
  account_id: string;
  url: string;
  events: string[];
  secrets: Secret[];
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
}
export interface AttemptRecord {
  attempt: number;
  at: string;
  status_code: number | null;
  latency_ms: number;
  response: string | null;
  error: string | null;
}

const toRow = (r: any): WebhookRow => ({ ...r, events: jsonColumn(r.events), secrets: jsonColumn(r.secrets), created_at: isoColumn(r.created_at) });
const notFound = (id: string) => new WebhookError("not_found", `no webhook ${id} on this account`, 404, { field: "id" });

/** Sets `value` at a dotted path of `obj` (made for event link keys such as "downloads.txt"). */
function setPath(obj: Record<string, any>, dotted: string, value: unknown) {
  const parts = dotted.split(".");
  let o = obj;
  for (const p of parts.slice(0, -1)) o = o[p] = typeof o[p] === "object" && o[p] !== null ? o[p] : {};
  o[parts.at(-1)!] = value;
}

export interface WebhookDeps {
  db: Db;
  queue: QueueManager;
  config: Config;
  log: Logger;
}

export class WebhookService {
  private linker: Linker | undefined;

  constructor(private readonly deps: WebhookDeps) {}

  private get cfg() {
    // Configs made before webhooks existed (tests building one by hand) lack the block.
    const given: Partial<Config["webhooks"]> = this.deps.config.webhooks ?? {};
    return { time_scale: 1, timeout_ms: 10_000, disable_after_hours: 72, ...given };
  }

  /** Signs links in event data (download_url, transcript files); without one, those keys are left out. */
  setLinker(fn: Linker): void {
    this.linker = fn;
  }

  async prepare(): Promise<void> {
    await this.deps.queue.ensureQueue(FANOUT_QUEUE);
    await this.deps.queue.ensureQueue(DELIVERY_QUEUE);
  }

  /** Works fan-out and delivery jobs (worker role). */
  async work(opts: { concurrency?: number } = {}): Promise<void> {
    await this.deps.queue.work<{ eventId: string }>(FANOUT_QUEUE, (d) => this.fanOut(d.eventId), { concurrency: 1 });
    await this.deps.queue.work<{ deliveryId: string; attempt: number }>(DELIVERY_QUEUE, (d) => this.attempt(d.deliveryId, d.attempt), { concurrency: opts.concurrency ?? 4 });
  }

  // ---- the registry -------------------------------------------------------------------------

  async create(accountId: string, input: { url: string; events?: string[] }, within?: Within<{ webhook: WebhookRow; secret: string }>): Promise<{ webhook: WebhookRow; secret: string }> {
    const url = await checkPublicUrl(input.url, { field: "url", config: this.deps.config, purpose: "webhooks go to public addresses only" });
    const events = [...new Set(input.events ?? WEBHOOK_EVENT_TYPES)];
    const secret = newSecret();
    const id = randomUUID();
    return transactionWith(this.deps.db, async (tx) => {
      await tx.query(`select id from accounts where id = $1 for update`, [accountId]);
      const { rows } = await tx.query(`select count(*)::int as n from webhooks where account_id = $1`, [accountId]);
      const same = await tx.query(`select id from webhooks where account_id = $1 and url = $2`, [accountId, url.toString()]);
      if (same.rows[0]) {
        throw new WebhookError("webhook_exists", `body field "url": ${url} is registered already on this account (webhook ${same.rows[0].id})`, 409, { field: "url", webhook_id: same.rows[0].id });
      }
      if (rows[0].n >= MAX_WEBHOOKS) {
        throw new WebhookError("too_many_webhooks", `an account has at most ${MAX_WEBHOOKS} webhook addresses; delete one first (DELETE /api/v1/webhooks/{id})`, 409, { limit: MAX_WEBHOOKS });
      }
      await tx.query(`insert into webhooks (id, account_id, url, events, secrets) values ($1, $2, $3, $4, $5)`, [
        id, accountId, url.toString(), JSON.stringify(events), JSON.stringify([{ secret, expires_at: null }]),
      ]);
      return { webhook: (await this.get(accountId, id, tx))!, secret };
    }, within);
  }

  async get(accountId: string, id: string, q: Queryable = this.deps.db): Promise<WebhookRow | undefined> {
    const { rows } = await q.query(`select * from webhooks where id = $1 and account_id = $2`, [id, accountId]);
    return rows[0] ? toRow(rows[0]) : undefined;
  }

  async list(accountId: string): Promise<WebhookRow[]> {
    const { rows } = await this.deps.db.query(`select * from webhooks where account_id = $1 order by created_at, id`, [accountId]);
    return rows.map(toRow);
  }

  /** The last deliveries of a webhook, newest first, each with its attempts. */
  async recentDeliveries(webhookId: string, limit = 10) {
    const { rows } = await this.deps.db.query(`select * from webhook_deliveries where webhook_id = $1 order by created_at desc, id limit $2`, [webhookId, limit]);
    const ids = rows.map((r: any) => r.id);
    const attempts = ids.length ? (await this.deps.db.query(`select * from webhook_attempts where delivery_id = any($1::uuid[]) order by attempt`, [ids])).rows : [];
    return rows.map((r: any) => ({
      id: r.id as string,
      event: r.event_type as string,
      test: r.event_id === null,
      status: r.status as string,
      created_at: isoColumn(r.created_at) as string,
      next_attempt_at: r.status === "pending" ? (isoColumn(r.next_attempt_at) as string | null) : null,
      attempts: attempts.filter((a: any) => a.delivery_id === r.id).map((a: any): AttemptRecord => ({
        attempt: a.attempt, at: isoColumn(a.at), status_code: a.status_code, latency_ms: a.latency_ms, response: a.response, error: a.error,
      })),
    }));
  }

  /** Switches an address on or off, or changes its events. Switching on starts a new count of failures. */
  async update(accountId: string, id: string, input: { enabled?: boolean; events?: string[] }): Promise<WebhookRow> {
    const sets: string[] = [];
    const params: unknown[] = [id, accountId];
    if (input.enabled !== undefined) {
      params.push(input.enabled);
      sets.push(`enabled = $${params.length}`, `disabled_reason = case when $${params.length} then null else 'switched off by the account' end`, `failing_since = null`);
    }
    if (input.events) {
      params.push(JSON.stringify([...new Set(input.events)]));
      sets.push(`events = $${params.length}`);
    }
    const { rows } = await this.deps.db.query(`update webhooks set ${[...sets, "updated_at = now()"].join(", ")} where id = $1 and account_id = $2 returning *`, params);
    if (!rows[0]) throw notFound(id);
    return toRow(rows[0]);
  }

  async remove(accountId: string, id: string): Promise<void> {
    const { rows } = await this.deps.db.query(`delete from webhooks where id = $1 and account_id = $2 returning id`, [id, accountId]);
    if (!rows[0]) throw notFound(id);
  }

  /** A new secret; the old ones keep signing for ROTATION_GRACE_SECONDS, so receivers can switch over. */
  async rotateSecret(accountId: string, id: string, within?: Within<{ secret: string; previous_expires_at: string }>): Promise<{ secret: string; previous_expires_at: string }> {
    const secret = newSecret();
    const expires = new Date(Date.now() + ROTATION_GRACE_SECONDS * 1000).toISOString();
    return transactionWith(this.deps.db, async (tx) => {
      const { rows } = await tx.query(`select * from webhooks where id = $1 and account_id = $2 for update`, [id, accountId]);
      if (!rows[0]) throw notFound(id);
      const kept = toRow(rows[0]).secrets.filter((s) => !s.expires_at || Date.parse(s.expires_at) > Date.now()).map((s) => ({ secret: s.secret, expires_at: s.expires_at ?? expires }));
      await tx.query(`update webhooks set secrets = $2, updated_at = now() where id = $1`, [id, JSON.stringify([{ secret, expires_at: null }, ...kept])]);
      return { secret, previous_expires_at: expires };
    }, within);
  }

  /** Sends a signed sample event at once (one attempt, no retries, no effect on switching off). */
  async sendTest(accountId: string, id: string, envelope: { type: string; livemode: boolean; data: Record<string, unknown> }) {
    const hook = await this.get(accountId, id);
    if (!hook) throw notFound(id);
    const deliveryId = randomUUID();
    const payload = JSON.stringify({ type: envelope.type, timestamp: new Date().toISOString(), livemode: envelope.livemode, data: envelope.data });
    await this.deps.db.query(`insert into webhook_deliveries (id, webhook_id, event_type, payload, claimed_attempt) values ($1, $2, $3, $4, 1)`, [deliveryId, id, envelope.type, payload]);
    const result = await this.post(hook, deliveryId, payload);
    await this.deps.db.transaction(async (tx) => {
      await this.insertAttempt(tx, deliveryId, 1, result);
      await tx.query(`update webhook_deliveries set status = $2, attempts = 1, claimed_attempt = null, last_error = $3, finished_at = now() where id = $1`, [deliveryId, result.ok ? "delivered" : "failed", result.error]);
    });
    return { delivery_id: deliveryId, delivered: result.ok, status: result.status_code, error: result.error };
  }

  // ---- fan-out and delivery -----------------------------------------------------------------

  /** One delivery per subscribed, enabled address of the event's account. Idempotent. */
  async fanOut(eventId: string): Promise<void> {
    const { rows } = await this.deps.db.query(`select * from events where id = $1`, [eventId]);
    const ev = rows[0];
    if (!ev?.account_id) return;
    const hooks = await this.deps.db.query(`select id from webhooks where account_id = $1 and enabled and events @> jsonb_build_array($2::text)`, [ev.account_id, ev.type]);
    if (!hooks.rows.length) return;
    const data = structuredClone(jsonColumn(ev.data) ?? {});
    for (const [at, file] of Object.entries((jsonColumn(ev.links) ?? {}) as Record<string, EventLink>)) {
      if (!this.linker) continue;
      const link = this.linker(file);
      setPath(data, at, link.url);
      if (!at.includes(".") && at.endsWith("_url")) data[`${at.slice(0, -4)}_expires_at`] = link.expires_at;
    }
    const payload = JSON.stringify({ type: ev.type, timestamp: isoColumn(ev.created_at), livemode: ev.livemode, data });
    await this.deps.db.transaction(async (tx) => {
      for (const h of hooks.rows) {
        const ins = await tx.query(
          `insert into webhook_deliveries (id, webhook_id, event_id, event_type, payload) values ($1, $2, $3, $4, $5)
           on conflict (webhook_id, event_id) where event_id is not null do nothing returning id`,
          [randomUUID(), h.id, eventId, ev.type, payload],
        );
        if (ins.rows[0]) await this.deps.queue.send(DELIVERY_QUEUE, { deliveryId: ins.rows[0].id, attempt: 1 }, { tx, ...this.jobOptions() });
      }
    });
  }

  private jobOptions() {
    // A worker that dies mid-attempt loses its heartbeat; the queue then runs the job again.
    return { retryLimit: 5, retryDelay: 5, expireInSeconds: Math.ceil(this.cfg.timeout_ms / 1000) + 30 };
  }

  /** Runs attempt `n` of a delivery, if the delivery still waits for it. */
  async attempt(deliveryId: string, n: number): Promise<void> {
    const claimSeconds = this.cfg.timeout_ms / 1000 + 5;
    const { rows } = await this.deps.db.query(
      `update webhook_deliveries set claimed_attempt = $2, claimed_until = now() + make_interval(secs => $3)
        where id = $1 and status = 'pending' and attempts = $2 - 1 and (claimed_attempt is distinct from $2 or claimed_until < now())
        returning *`,
      [deliveryId, n, claimSeconds],
    );
    if (!rows[0]) {
      const held = await this.deps.db.query(`select 1 from webhook_deliveries where id = $1 and status = 'pending' and attempts = $2 - 1`, [deliveryId, n]);
      if (held.rows.length) throw new Error(`attempt ${n} of delivery ${deliveryId} is in flight on another worker`); // the queue tries again later
      return; // done, or a stale duplicate
    }
    const delivery = rows[0];
    const { rows: hooks } = await this.deps.db.query(`select * from webhooks where id = $1`, [delivery.webhook_id]);
    if (!hooks[0]) return;
    const hook = toRow(hooks[0]);
    if (!hook.enabled) {
      await this.deps.db.query(`update webhook_deliveries set status = 'failed', last_error = 'the webhook is switched off', claimed_attempt = null, finished_at = now() where id = $1`, [deliveryId]);
      return;
    }
    const result = await this.post(hook, deliveryId, delivery.payload);
    await this.deps.db.transaction(async (tx) => {
      if (!(await this.insertAttempt(tx, deliveryId, n, result))) return; // recorded by another worker
      if (result.ok) {
        await tx.query(`update webhook_deliveries set status = 'delivered', attempts = $2, claimed_attempt = null, last_error = null, finished_at = now() where id = $1`, [deliveryId, n]);
        await tx.query(`update webhooks set failing_since = null where id = $1 and failing_since is not null`, [hook.id]);
        return;
      }
      const scale = this.cfg.time_scale;
      const { rows: f } = await tx.query(
        `update webhooks set failing_since = coalesce(failing_since, now()) where id = $1
         returning failing_since < now() - make_interval(secs => $2) as expired`,
        [hook.id, this.cfg.disable_after_hours * 3600 * scale],
      );
      if (f[0]?.expired) {
        const reason = `switched off after failing for ${this.cfg.disable_after_hours} hours in a row`;
        await tx.query(`update webhooks set enabled = false, disabled_reason = $2, updated_at = now() where id = $1`, [hook.id, reason]);
        await tx.query(`update webhook_deliveries set status = 'failed', attempts = $2, claimed_attempt = null, last_error = $3, finished_at = now() where id = $1`, [deliveryId, n, result.error]);
        this.deps.log.warn({ webhookId: hook.id }, "webhook switched off: failing for too long");
        return;
      }
      const minutes = RETRY_MINUTES[n - 1];
      if (minutes === undefined) {
        await tx.query(`update webhook_deliveries set status = 'failed', attempts = $2, claimed_attempt = null, last_error = $3, finished_at = now() where id = $1`, [deliveryId, n, result.error]);
        return;
      }
      const delay = minutes * 60 * scale;
      await tx.query(
        `update webhook_deliveries set attempts = $2, claimed_attempt = null, last_error = $3, next_attempt_at = now() + make_interval(secs => $4) where id = $1`,
        [deliveryId, n, result.error, delay],
      );
      await this.deps.queue.send(DELIVERY_QUEUE, { deliveryId, attempt: n + 1 }, { tx, startAfterSeconds: delay, ...this.jobOptions() });
    });
  }

  private async insertAttempt(tx: Queryable, deliveryId: string, n: number, r: PostResult): Promise<boolean> {
    const ins = await tx.query(
      `insert into webhook_attempts (delivery_id, attempt, at, status_code, latency_ms, response, error) values ($1, $2, $3, $4, $5, $6, $7)
       on conflict do nothing returning attempt`,
      [deliveryId, n, r.at, r.status_code, r.latency_ms, r.response, r.error],
    );
    return ins.rows.length > 0;
  }

  /** One signed POST with the address's live secrets; never throws. */
  private async post(hook: WebhookRow, deliveryId: string, payload: string): Promise<PostResult> {
    const now = Date.now();
    return postSigned({
      url: hook.url,
      msgId: deliveryId,
      payload,
      secrets: hook.secrets.filter((s) => !s.expires_at || Date.parse(s.expires_at) > now).map((s) => s.secret),
      timeoutMs: this.cfg.timeout_ms,
      userAgent: "clipd-webhooks",
      net: netguardOptionsFromConfig(this.deps.config),
      responseBytes: RESPONSE_BYTES,
    });
  }
}
