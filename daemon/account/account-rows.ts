/**
 * Accounts and API keys as stored: their rows, the scopes a key may hold, the key token's format
 * and fingerprint, and an account's saved clip defaults. Split from accounts.ts, whose service
 * keeps the cache and the writes; these helpers need neither, and free keys and auth use them too.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Queryable } from "../store/db.js";
import { jsonColumn } from "../store/_columns.js";

export const SCOPES = ["clips.read", "clips.write", "transcripts", "webhooks"] as const;
export type Scope = (typeof SCOPES)[number];
export const MAX_KEYS_PER_ACCOUNT = 5;

export interface Account {
  id: string;
  email: string;
  plan: boolean;
  credit_cents: number;
  billing_review: boolean;
  created_at: string;
}

export interface ApiKey {
  id: string;
  account_id: string;
  /** The name given on the website; null for keys the admin CLI made. */
  name: string | null;
  prefix: string;
  mode: "live" | "test";
  scopes: Scope[];
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
  /** When the key last authenticated, to the minute (see `touch` in accounts.ts). */
  last_used_at: string | null;
}

export function fingerprint(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
export function randomToken(len: number): string {
  const bytes = randomBytes(len * 2);
  let out = "";
  for (const b of bytes) {
    if (b < 248) out += ALPHABET[b % 62]; // 248 = 4 × 62: keeps the draw uniform
    if (out.length === len) break;
  }
  return out.length === len ? out : out + randomToken(len - out.length);
}

export function keyKind(token: string): "live" | "test" | "free" | undefined {
  const m = /^svc_(live|test|free)_[A-Za-z0-9]{20,64}$/.exec(token);
  return m ? (m[1] as "live" | "test" | "free") : undefined;
}

const toIso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null));
// biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
export function rowToKey(r: any): ApiKey {
  return {
    id: r.id,
    account_id: r.account_id,
    name: r.name ?? null,
    prefix: r.prefix,
    mode: r.mode,
    scopes: r.scopes,
    expires_at: toIso(r.expires_at),
    revoked_at: toIso(r.revoked_at),
    created_at: toIso(r.created_at)!,
    last_used_at: toIso(r.last_used_at) ?? null,
  };
}
// biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
export function rowToAccount(r: any): Account {
  return {
    id: r.id,
    email: r.email,
    plan: r.plan,
    credit_cents: Number(r.credit_cents),
    billing_review: r.billing_review,
    created_at: toIso(r.created_at)!,
  };
}

/** The clip look an account saved as its defaults (save_as_default), or null when it saved none. */
export async function readClipDefaults(q: Queryable, accountId: string): Promise<Record<string, unknown> | null> {
  const { rows } = await q.query(`select clip_defaults from accounts where id = $1`, [accountId]);
  return jsonColumn(rows[0]?.clip_defaults) ?? null;
}

export async function saveClipDefaults(q: Queryable, accountId: string, look: Record<string, unknown>): Promise<void> {
  await q.query(`update accounts set clip_defaults = $2 where id = $1`, [accountId, JSON.stringify(look)]);
}
