/**
 * Webhooks: an account's addresses, the fan-out of its events, and signed delivery with retries.
 * The addresses and their secrets are kept in webhook-registry.ts, their rows in webhook-rows.ts.
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
import type { Config } from "../../config/loader.js";
import { FANOUT_QUEUE, type EventLink } from "../engine/events.js";
import * as courier from "../delivery/courier.js";
import { recentDeliveries } from "./delivery-view.js";
import type { Queryable } from "../store/db.js";
import { isoColumn, jsonColumn } from "../store/_columns.js";
import { WebhookRegistry } from "./webhook-registry.js";
import { liveSecrets, notFound, toRow, type WebhookDeps, type WebhookRow } from "./webhook-rows.js";

export { MAX_WEBHOOKS, ROTATION_GRACE_SECONDS } from "./webhook-registry.js";
export type { WebhookDeps } from "./webhook-rows.js";

export const DELIVERY_QUEUE = "clipd-webhook-delivery";
/** Minutes from a failed attempt to the next one; 9 attempts spanning 25 hours. */
export const RETRY_MINUTES = [1, 5, 30, 60, 120, 240, 480, 564];
const RESPONSE_BYTES = 1024;

/** Turns a stored file into a signed link; given by the process that can sign (daemon/boot/roles.ts). */
export type Linker = (file: EventLink) => { url: string; expires_at: string };

export type AttemptRecord = courier.AttemptRecord;

/** Sets `value` at a dotted path of `obj` (made for event link keys such as "downloads.txt"). */
// biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
function setPath(obj: Record<string, any>, dotted: string, value: unknown) {
  const parts = dotted.split(".");
  let o = obj;
  for (const p of parts.slice(0, -1)) o = o[p] = typeof o[p] === "object" && o[p] !== null ? o[p] : {};
  o[parts.at(-1)!] = value;
}

export class WebhookService {
  private linker: Linker | undefined;
  /** An account's addresses and their secrets (webhook-registry.ts). */
  private readonly registry: WebhookRegistry;
  /** What a webhook delivery is to the courier: plan, target and the switch-off rule. */
  private readonly kind: courier.DeliveryKind;

  constructor(private readonly deps: WebhookDeps) {
    this.registry = new WebhookRegistry(deps);
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

  /** A new address with its first secret; at most MAX_WEBHOOKS per account, one per url (webhook-registry.ts). */
  create(...args: Parameters<WebhookRegistry["create"]>): ReturnType<WebhookRegistry["create"]> {
    return this.registry.create(...args);
  }

  get(...args: Parameters<WebhookRegistry["get"]>): Promise<WebhookRow | undefined> {
    return this.registry.get(...args);
  }

  list(accountId: string): Promise<WebhookRow[]> {
    return this.registry.list(accountId);
  }

  /** The last deliveries of a webhook, newest first, each with its attempts (delivery-view.ts). */
  recentDeliveries(webhookId: string, limit = 10) {
    return recentDeliveries(this.deps.db, webhookId, limit);
  }

  /** Switches an address on or off, or changes its events. Switching on starts a new count of failures. */
  update(...args: Parameters<WebhookRegistry["update"]>): Promise<WebhookRow> {
    return this.registry.update(...args);
  }

  remove(accountId: string, id: string): Promise<void> {
    return this.registry.remove(accountId, id);
  }

  /** A new secret; the old ones keep signing for ROTATION_GRACE_SECONDS, so receivers can switch over. */
  rotateSecret(...args: Parameters<WebhookRegistry["rotateSecret"]>): ReturnType<WebhookRegistry["rotateSecret"]> {
    return this.registry.rotateSecret(...args);
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
