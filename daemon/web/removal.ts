/**
 * Removing a deleted account's data once `web.account_removal_days` have passed (removal_due_at):
 * a daily pg-boss schedule runs `sweep`. The account's stored media (every file of its runs, its
 * uploads, its brand kits' files and its episodes' cover art) goes, then in one transaction its
 * brand kits, episodes, clips, jobs, transcripts, events, webhooks
 * with their deliveries, runs, keys, idempotency records and sign-in rows; the account row is
 * anonymised and kept, because its ledger and payment records stay for accounting. An account
 * with a run still in flight waits for the next sweep. Files go before rows, so a sweep cut short
 * leaves rows that the next sweep finds again; removing a missing file is not an error.
 */
import type { Logger } from "pino";
import type { QueueManager } from "../engine/queue.js";
import type { Storage } from "../storage/storage.js";
import type { Db, Queryable } from "../store/db.js";

export const REMOVAL_QUEUE = "clipd-account-removal";
const REMOVAL_CRON = "41 3 * * *";
/** Accounts handled per sweep; the rest wait a day (a sweep stays short). */
const PER_SWEEP = 20;

export interface RemovalDeps {
  db: Db;
  storage: Storage;
  queue: QueueManager;
  log: Logger;
}

export class AccountRemoval {
  constructor(private readonly d: RemovalDeps) {}

  /** The queue and its daily schedule; idempotent. */
  async prepare(): Promise<void> {
    await this.d.queue.ensureQueue(REMOVAL_QUEUE);
    await this.d.queue.schedule(REMOVAL_QUEUE, REMOVAL_CRON);
  }

  async work(): Promise<void> {
    await this.d.queue.work<object>(REMOVAL_QUEUE, async () => void (await this.sweep()), { concurrency: 1 });
  }

  /** Removes the data of every account due; returns the ids removed. */
  async sweep(): Promise<string[]> {
    const { rows } = await this.d.db.query(
      `select id from accounts where removal_due_at is not null and removal_due_at ` +
        `<= now() and removed_at is null order by removal_due_at limit $1`,
      [PER_SWEEP],
    );
    const removed: string[] = [];
    for (const r of rows) if (await this.removeOne(String(r.id))) removed.push(String(r.id));
    if (removed.length) this.d.log.info({ accounts: removed.length }, "deleted accounts' data removed");
    return removed;
  }

  private async removeOne(accountId: string): Promise<boolean> {
    const runs = await this.d.db.query(`select id, state from runs where input->>'account_id' = $1`, [accountId]);
    if (runs.rows.some((r) => r.state === "queued" || r.state === "running")) return false;
    const runIds = runs.rows.map((r) => String(r.id));
    const uploads = await this.d.db.query(
      `select upload->>'key' as key, cover_key from episodes where account_id ` +
        `= $1 and (upload is not null or cover_key is not null)`,
      [accountId],
    );
    for (const id of runIds) await this.d.storage.remove(`runs/${id}`);
    for (const u of uploads.rows)
      for (const key of [u.key, u.cover_key]) if (key) await this.d.storage.remove(String(key));
    await this.d.storage.remove(`brand/${accountId}`); // the brand kits' fonts, logos and covers (daemon/brand/)
    // A clip's edited words are handed to its renders from edits/<clip>/ (daemon/account/clip-spans.ts).
    const clips = await this.d.db.query(`select id from clips where account_id = $1`, [accountId]);
    for (const c of clips.rows) await this.d.storage.remove(`edits/${c.id}`);
    await this.d.db.transaction((tx) => removeRows(tx, accountId, runIds));
    return true;
  }
}

/** The account's rows, children before parents; the account row anonymised. */
async function removeRows(tx: Queryable, accountId: string, runIds: string[]): Promise<void> {
  const by = (table: string) => tx.query(`delete from ${table} where account_id = $1`, [accountId]);
  // Deliveries and their attempts go with their webhooks (on delete cascade).
  await by("webhooks");
  await tx.query(
    `delete from deliveries where event_id in (select id from events where ` +
      `account_id = $1 or run_id = any($2::uuid[]))`,
    [accountId, runIds],
  );
  await tx.query(`delete from events where account_id = $1 or run_id = any($2::uuid[])`, [accountId, runIds]);
  for (const table of [
    "brand_kits",
    "jobs",
    "clips",
    "episodes",
    "transcripts",
    "idempotency",
    "api_keys",
    "web_sessions",
    "web_tokens",
  ])
    await by(table);
  // A watch-folder file may name one of the account's runs (watch.account_id): it keeps its row.
  await tx.query(`update watch_files set run_id = null where run_id = any($1::uuid[])`, [runIds]);
  await tx.query(`delete from runs where id = any($1::uuid[])`, [runIds]);
  await tx.query(
    `update accounts set email = 'removed-' || id || '@removed.invalid', password_hash ` +
      `= null, clip_defaults = null, removed_at = now() where id = $1`,
    [accountId],
  );
}
