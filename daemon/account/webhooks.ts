/**
 * Webhooks: an account's addresses, the fan-out of its events, and signed delivery with retries.
 *
 * Guarantees:
 * - An event committed by recordEvent (events.ts) has a fan-out job committed with it; fan-out makes
 *   one delivery row per subscribed, enabled address (at most once: unique per address and event)
 *   and enqueues its first attempt in the same transaction.
 * - Delivery is the one courier's (daemon/delivery/courier.ts): each attempt a pg-boss job, its
 *   record and the delayed retry committed together (a pending retry survives a crash), a claim so
 *   two workers never send the same attempt, every attempt in delivery_attempts.
 * - Every attempt is a signed POST (signed-post.ts: Standard Webhooks headers, webhook-id is the
 *   delivery id, one signature per live secret during a rotation), to an address read and checked
 *   again at every attempt; redirects are not followed; only a 2xx within `webhooks.timeout_ms`
 *   succeeds.
 * - Retries after 1, 5, 30 and 60 minutes, then 2, 4, 8 and 9.4 hours (25 hours in all), each times
 *   `webhooks.time_scale`. The switch-off stays a webhook rule (this file, afterAttempt): an address
 *   whose failures have gone on for `disable_after_hours` is switched off (enabled: false) until
 *   the account switches it on again.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Config } from "../../config/loader.js";
import { checkPublicUrl } from "../net/public-url.js";
import { Conflict, NotFound } from "../domain/errors.js";
import { FANOUT_QUEUE, WEBHOOK_EVENT_TYPES, type EventLink } from "../engine/events.js";
import type { QueueManager } from "../engine/queue.js";
import { newSecret } from "../delivery/signed-post.js";
import * as courier from "../delivery/courier.js";
import { recentDeliveries } from "./delivery-view.js";
import { transactionWith, type Db, type Queryable, type Within } from "../store/db.js";
import { isoColumn, jsonColumn } from "../store/_columns.js";

export const DELIVERY_QUEUE = "clipd-webhook-delivery";
/** Minutes from a failed attempt to the next one; 9 attempts spanning 25 hours. */
export const RETRY_MINUTES = [1, 5, 30, 60, 120, 240, 480, 564];
export const MAX_WEBHOOKS = 5;
/** How long a replaced secret keeps signing after a rotation. */
export const ROTATION_GRACE_SECONDS = 24 * 3600;
const RESPONSE_BYTES = 1024;

/** Turns a stored file into a signed link; given by the process that can sign (daemon/boot/roles.ts). */
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
export type AttemptRecord = courier.AttemptRecord;

// biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
const toRow = (r: any): WebhookRow => ({
  ...r,
  events: jsonColumn(r.events),
  secrets: jsonColumn(r.secrets),
  created_at: isoColumn(r.created_at),
});
const notFound = (id: string) =>
  new NotFound("not_found", `no webhook ${id} on this account`, { context: { field: "id" } });

/** Sets `value` at a dotted path of `obj` (made for event link keys such as "downloads.txt"). */
// biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
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
  /** What a webhook delivery is to the courier: plan, target and the switch-off rule. */
  private readonly kind: courier.DeliveryKind;

  constructor(private readonly deps: WebhookDeps) {
    this.kind = {
      kind: "webhook",
      queue: DELIVERY_QUEUE,
      retrySeconds: RETRY_MINUTES.map((m) => m * 60),
      timeScale: () => this.cfg.time_scale,
      timeoutMs: () => this.cfg.timeout_ms,
      userAgent: "clipd-webhooks",
      responseBytes: RESPONSE_BYTES,
      target: (q, d) => this.target(q, d.webhook_id),
      afterAttempt: (tx, d, result) => this.afterAttempt(tx, d.webhook_id, result.ok),
    };
  }

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
    await courier.work(this.deps, this.kind, opts.concurrency ?? 4);
  }

  // ---- the registry -------------------------------------------------------------------------

  async create(
    accountId: string,
    input: { url: string; events?: string[] },
    within?: Within<{ webhook: WebhookRow; secret: string }>,
  ): Promise<{ webhook: WebhookRow; secret: string }> {
    const url = await checkPublicUrl(input.url, {
      field: "url",
      config: this.deps.config,
      purpose: "webhooks go to public addresses only",
    });
    const events = [...new Set(input.events ?? WEBHOOK_EVENT_TYPES)];
    const secret = newSecret();
    const id = randomUUID();
    return transactionWith(
      this.deps.db,
      async (tx) => {
        await tx.query(`select id from accounts where id = $1 for update`, [accountId]);
        const { rows } = await tx.query(`select count(*)::int as n from webhooks where account_id = $1`, [accountId]);
        const same = await tx.query(`select id from webhooks where account_id = $1 and url = $2`, [
          accountId,
          url.toString(),
        ]);
        if (same.rows[0]) {
          throw new Conflict(
            "webhook_exists",
            `body field "url": ${url} is registered already on this account (webhook ${same.rows[0].id})`,
            { context: { field: "url", webhook_id: same.rows[0].id } },
          );
        }
        if (rows[0].n >= MAX_WEBHOOKS) {
          throw new Conflict(
            "too_many_webhooks",
            `an account has at most ${MAX_WEBHOOKS} webhook addresses; delete one first (DELETE /api/v1/webhooks/{id})`,
            { context: { limit: MAX_WEBHOOKS } },
          );
        }
        await tx.query(`insert into webhooks (id, account_id, url, events, secrets) values ($1, $2, $3, $4, $5)`, [
          id,
          accountId,
          url.toString(),
          JSON.stringify(events),
          JSON.stringify([{ secret, expires_at: null }]),
        ]);
        return { webhook: (await this.get(accountId, id, tx))!, secret };
      },
      within,
    );
  }

  async get(accountId: string, id: string, q: Queryable = this.deps.db): Promise<WebhookRow | undefined> {
    const { rows } = await q.query(`select * from webhooks where id = $1 and account_id = $2`, [id, accountId]);
    return rows[0] ? toRow(rows[0]) : undefined;
  }

  async list(accountId: string): Promise<WebhookRow[]> {
    const { rows } = await this.deps.db.query(`select * from webhooks where account_id = $1 order by created_at, id`, [
      accountId,
    ]);
    return rows.map(toRow);
  }

  /** The last deliveries of a webhook, newest first, each with its attempts (delivery-view.ts). */
  recentDeliveries(webhookId: string, limit = 10) {
    return recentDeliveries(this.deps.db, webhookId, limit);
  }

  /** Switches an address on or off, or changes its events. Switching on starts a new count of failures. */
  async update(accountId: string, id: string, input: { enabled?: boolean; events?: string[] }): Promise<WebhookRow> {
    const sets: string[] = [];
    const params: unknown[] = [id, accountId];
    if (input.enabled !== undefined) {
      params.push(input.enabled);
      sets.push(
        `enabled = $${params.length}`,
        `disabled_reason = case when $${params.length} then null else 'switched off by the account' end`,
        `failing_since = null`,
      );
    }
    if (input.events) {
      params.push(JSON.stringify([...new Set(input.events)]));
      sets.push(`events = $${params.length}`);
    }
    const { rows } = await this.deps.db.query(
      `update webhooks set ${[...sets, "updated_at = now()"].join(", ")} where id = $1 and account_id = $2 returning *`,
      params,
    );
    if (!rows[0]) throw notFound(id);
    return toRow(rows[0]);
  }

  async remove(accountId: string, id: string): Promise<void> {
    const { rows } = await this.deps.db.query(`delete from webhooks where id = $1 and account_id = $2 returning id`, [
      id,
      accountId,
    ]);
    if (!rows[0]) throw notFound(id);
  }

  /** A new secret; the old ones keep signing for ROTATION_GRACE_SECONDS, so receivers can switch over. */
  async rotateSecret(
    accountId: string,
    id: string,
    within?: Within<{ secret: string; previous_expires_at: string }>,
  ): Promise<{ secret: string; previous_expires_at: string }> {
    const secret = newSecret();
    const expires = new Date(Date.now() + ROTATION_GRACE_SECONDS * 1000).toISOString();
    return transactionWith(
      this.deps.db,
      async (tx) => {
        const { rows } = await tx.query(`select * from webhooks where id = $1 and account_id = $2 for update`, [
          id,
          accountId,
        ]);
        if (!rows[0]) throw notFound(id);
        const kept = toRow(rows[0])
          .secrets.filter((s) => !s.expires_at || Date.parse(s.expires_at) > Date.now())
          .map((s) => ({ secret: s.secret, expires_at: s.expires_at ?? expires }));
        await tx.query(`update webhooks set secrets = $2, updated_at = now() where id = $1`, [
          id,
          JSON.stringify([{ secret, expires_at: null }, ...kept]),
        ]);
        return { secret, previous_expires_at: expires };
      },
      within,
    );
  }

  /** Sends a signed sample event at once (one attempt, no retries, no effect on switching off). */
  async sendTest(
    accountId: string,
    id: string,
    envelope: { type: string; livemode: boolean; data: Record<string, unknown> },
  ) {
    const hook = await this.get(accountId, id);
    if (!hook) throw notFound(id);
    const payload = JSON.stringify({
      type: envelope.type,
      timestamp: new Date().toISOString(),
      livemode: envelope.livemode,
      data: envelope.data,
    });
    const { id: deliveryId, result } = await courier.sendNow(
      this.deps,
      this.kind,
      { payload, refs: { webhook_id: id, event_type: envelope.type } },
      { url: hook.url, secrets: liveSecrets(hook) },
    );
    return { delivery_id: deliveryId, delivered: result.ok, status: result.status_code, error: result.error };
  }

  // ---- fan-out and delivery -----------------------------------------------------------------

  /** One delivery per subscribed, enabled address of the event's account. Idempotent. */
  async fanOut(eventId: string): Promise<void> {
    const { rows } = await this.deps.db.query(`select * from events where id = $1`, [eventId]);
    const ev = rows[0];
    if (!ev?.account_id) return;
    const hooks = await this.deps.db.query(
      `select id from webhooks where account_id = $1 and enabled and events @> jsonb_build_array($2::text)`,
      [ev.account_id, ev.type],
    );
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
        // At most once per address and event: the unique index makes a repeated fan-out a no-op.
        await courier.enqueue(tx, this.deps.queue, this.kind, {
          payload,
          refs: { webhook_id: h.id, event_id: eventId, event_type: ev.type },
        });
      }
    });
  }

  /** Runs attempt `n` of a delivery, if the delivery still waits for it. */
  attempt(deliveryId: string, n: number): Promise<void> {
    return courier.attempt(this.deps, this.kind, deliveryId, n);
  }

  /** The address and its live secrets now; a switched-off address fails its delivery unsent. */
  private async target(q: Queryable, webhookId: string): Promise<courier.Target | string | undefined> {
    const { rows } = await q.query(`select * from webhooks where id = $1`, [webhookId]);
    if (!rows[0]) return undefined; // deleted: its deliveries went with it
    const hook = toRow(rows[0]);
    return hook.enabled ? { url: hook.url, secrets: liveSecrets(hook) } : "the webhook is switched off";
  }

  /**
   * The switch-off rule, in the transaction that records an attempt: a success ends the address's
   * run of failures; a failure that extends it past disable_after_hours switches the address off
   * and stops the retries (true).
   */
  private async afterAttempt(tx: Queryable, webhookId: string, ok: boolean): Promise<boolean> {
    if (ok) {
      await tx.query(`update webhooks set failing_since = null where id = $1 and failing_since is not null`, [
        webhookId,
      ]);
      return false;
    }
    const { rows } = await tx.query(
      `update webhooks set failing_since = coalesce(failing_since, now()) where id = $1
       returning failing_since < now() - make_interval(secs => $2) as expired`,
      [webhookId, this.cfg.disable_after_hours * 3600 * this.cfg.time_scale],
    );
    if (!rows[0]?.expired) return false;
    const reason = `switched off after failing for ${this.cfg.disable_after_hours} hours in a row`;
    await tx.query(`update webhooks set enabled = false, disabled_reason = $2, updated_at = now() where id = $1`, [
      webhookId,
      reason,
    ]);
    this.deps.log.warn({ webhookId }, "webhook switched off: failing for too long");
    return true;
  }
}

/** The secrets that sign now: the newest, and older ones still in their rotation grace. */
function liveSecrets(hook: WebhookRow): string[] {
  const now = Date.now();
  return hook.secrets.filter((s) => !s.expires_at || Date.parse(s.expires_at) > now).map((s) => s.secret);
}
