/**
 * The webhook registry: an account's addresses created, read, switched on or off, deleted, and
 * their signing secrets rotated. Split from webhooks.ts, which fans events out and delivers them;
 * WebhookService answers for both.
 */
import { randomUUID } from "node:crypto";
import { checkPublicUrl } from "../net/public-url.js";
import { Conflict } from "../domain/errors.js";
import { WEBHOOK_EVENT_TYPES } from "../engine/events.js";
import { newSecret } from "../delivery/signed-post.js";
import { transactionWith, type Queryable, type Within } from "../store/db.js";
import { notFound, toRow, type WebhookDeps, type WebhookRow } from "./webhook-rows.js";

export const MAX_WEBHOOKS = 5;
/** How long a replaced secret keeps signing after a rotation. */
export const ROTATION_GRACE_SECONDS = 24 * 3600;

export class WebhookRegistry {
  constructor(private readonly deps: WebhookDeps) {}

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
}
