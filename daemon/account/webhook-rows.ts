/**
 * A webhook address as stored (its row, its secrets) and what both the registry
 * (webhook-registry.ts) and delivery (webhooks.ts) read of it, so the registry needs nothing of the service.
 */
import type { Logger } from "pino";
import type { Config } from "../../config/loader.js";
import { NotFound } from "../domain/errors.js";
import type { QueueManager } from "../engine/queue.js";
import type { Db } from "../store/db.js";
import { isoColumn, jsonColumn } from "../store/_columns.js";

interface Secret {
  secret: string;
  expires_at: string | null;
}
export interface WebhookRow {
  id: string;
  account_id: string;
  url: string;
  events: string[];
  secrets: Secret[];
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
}
export interface WebhookDeps {
  db: Db;
  queue: QueueManager;
  config: Config;
  log: Logger;
}

// biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
export const toRow = (r: any): WebhookRow => ({
  ...r,
  events: jsonColumn(r.events),
  secrets: jsonColumn(r.secrets),
  created_at: isoColumn(r.created_at),
});
export const notFound = (id: string) =>
  new NotFound("not_found", `no webhook ${id} on this account`, { context: { field: "id" } });

/** The secrets that sign now: the newest, and older ones still in their rotation grace. */
export function liveSecrets(hook: WebhookRow): string[] {
  const now = Date.now();
  return hook.secrets.filter((s) => !s.expires_at || Date.parse(s.expires_at) > now).map((s) => s.secret);
}
