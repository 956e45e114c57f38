/**
 * Accounts and API keys. A key is `svc_live_…` or `svc_test_…` plus 32 random bytes (base62-ish);
 * only its sha256 fingerprint is stored, and lookups go by fingerprint, so the comparison is on a
 * fixed-length digest (the final equality check is constant-time). Authenticated lookups are cached
 * in process for a short time; a revocation clears the cache entry at once in this process and,
 * through LISTEN/NOTIFY, in every other process on the same database.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { Db, Queryable } from "../store/db.js";
import { jsonColumn } from "../store/_columns.js";
import { Conflict, NotFound, Refused } from "../domain/errors.js";

export const SCOPES = ["clips.read", "clips.write", "transcripts", "webhooks"] as const;
export type Scope = (typeof SCOPES)[number];
export const MAX_KEYS_PER_ACCOUNT = 5;
export const KEY_CHANNEL = "clipd_keys";

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
  /** When the key last authenticated, to the minute (see `touch`). */
  last_used_at: string | null;
}

/** A key's last use is written at most this often, so authentication stays one read. */
const TOUCH_EVERY_MS = 60_000;

export function fingerprint(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
function randomToken(len: number): string {
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

interface CachedKey {
  key: ApiKey;
  account: Account;
  fp: string;
  at: number;
}

const toIso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null));
// biome-ignore lint/suspicious/noExplicitAny: a SQL row; its columns come from the query text
function rowToKey(r: any): ApiKey {
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
function rowToAccount(r: any): Account {
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

export class AccountService {
  private cache = new Map<string, CachedKey>();
  /** When this process last wrote each key's last_used_at (bounded: one entry per key used). */
  private touched = new Map<string, number>();
  private unlisten?: () => Promise<void>;

  constructor(
    private readonly db: Db,
    private readonly opts: { cacheMs?: number } = {},
  ) {}

  /** Subscribes to revocations from other processes. */
  async start(): Promise<void> {
    // Revocations notified while the session was lost are not replayed: forget every cached key then.
    this.unlisten = await this.db.listen?.(KEY_CHANNEL, (payload) => this.evict(payload), {
      onGap: () => this.evict("*"),
    });
  }

  async stop(): Promise<void> {
    await this.unlisten?.();
  }

  private evict(keyId: string) {
    for (const [fp, c] of this.cache) if (c.key.id === keyId || keyId === "*") this.cache.delete(fp);
  }

  async createAccount(input: { email: string; creditCents?: number; plan?: boolean }): Promise<Account> {
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(input.email))
      throw new Refused("invalid_request", `"${input.email}" is not an email address`, { context: { field: "email" } });
    const id = randomUUID();
    await this.db.transaction(async (tx) => {
      await tx.query(`insert into accounts (id, email, plan) values ($1, $2, $3)`, [
        id,
        input.email,
        Boolean(input.plan),
      ]);
      if (input.creditCents) await this.addCreditTx(tx, id, input.creditCents, "initial credit");
    });
    return (await this.getAccount(id))!;
  }

  async getAccount(id: string, q: Queryable = this.db): Promise<Account | undefined> {
    const { rows } = await q.query(`select * from accounts where id = $1`, [id]);
    return rows[0] ? rowToAccount(rows[0]) : undefined;
  }

  async addCredit(accountId: string, cents: number, note = "credit added"): Promise<Account> {
    if (!Number.isInteger(cents) || cents <= 0)
      throw new Refused("invalid_request", "cents must be a whole number above zero", { context: { field: "cents" } });
    await this.db.transaction((tx) => this.addCreditTx(tx, accountId, cents, note));
    return (await this.getAccount(accountId))!;
  }

  private async addCreditTx(tx: Queryable, accountId: string, cents: number, note: string) {
    const r = await tx.query(`update accounts set credit_cents = credit_cents + $2 where id = $1 returning id`, [
      accountId,
      cents,
    ]);
    if (!r.rows.length)
      throw new NotFound("not_found", `account ${accountId} does not exist`, { context: { field: "account" } });
    await tx.query(`insert into ledger (id, account_id, cents, kind, note) values ($1, $2, $3, 'credit', $4)`, [
      randomUUID(),
      accountId,
      cents,
      note,
    ]);
    this.evictAccount(accountId);
  }

  /** Forgets cached keys of an account, so balance or review changes are seen at once here. */
  evictAccount(accountId: string) {
    for (const [fp, c] of this.cache) if (c.account.id === accountId) this.cache.delete(fp);
  }

  async createKey(input: {
    accountId: string;
    mode: "live" | "test";
    scopes: string[];
    expiresInDays?: number;
    name?: string;
  }): Promise<{ key: string; apiKey: ApiKey }> {
    const bad = input.scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (bad.length || !input.scopes.length)
      throw new Refused(
        "invalid_request",
        `scopes must be some of ${SCOPES.join(", ")}${bad.length ? `; unknown: ${bad.join(", ")}` : ""}`,
        { context: { field: "scopes" } },
      );
    if (input.expiresInDays !== undefined && ![30, 90].includes(input.expiresInDays))
      throw new Refused("invalid_request", "expires_in_days must be 30 or 90", {
        context: { field: "expires_in_days" },
      });
    const token = `svc_${input.mode}_${randomToken(32)}`;
    const id = randomUUID();
    await this.db.transaction(async (tx) => {
      const acc = await tx.query(`select id from accounts where id = $1 for update`, [input.accountId]);
      if (!acc.rows.length)
        throw new NotFound("not_found", `account ${input.accountId} does not exist`, { context: { field: "account" } });
      const { rows } = await tx.query(
        `select count(*)::int as n from api_keys where account_id = $1 and revoked_at ` +
          `is null and (expires_at is null or expires_at > now())`,
        [input.accountId],
      );
      if (rows[0].n >= MAX_KEYS_PER_ACCOUNT)
        throw new Conflict(
          "too_many_keys",
          `an account has at most ${MAX_KEYS_PER_ACCOUNT} active keys; revoke one first`,
          { context: { limit: MAX_KEYS_PER_ACCOUNT } },
        );
      await tx.query(
        `insert into api_keys (id, account_id, fingerprint, prefix, mode, scopes, expires_at, name)
         values ($1, $2, $3, $4, $5, $6, case when $7::int is null then null else now() + make_interval(days => $7::int) end, $8)`,
        [
          id,
          input.accountId,
          fingerprint(token),
          token.slice(0, 13),
          input.mode,
          input.scopes,
          input.expiresInDays ?? null,
          input.name ?? null,
        ],
      );
    });
    const { rows } = await this.db.query(`select * from api_keys where id = $1`, [id]);
    return { key: token, apiKey: rowToKey(rows[0]) };
  }

  async revokeKey(keyId: string): Promise<ApiKey> {
    const { rows } = await this.db.query(
      `update api_keys set revoked_at = coalesce(revoked_at, now()) where id = $1 returning *`,
      [keyId],
    );
    if (!rows.length) throw new NotFound("not_found", `key ${keyId} does not exist`, { context: { field: "key_id" } });
    this.evict(keyId);
    await this.db.notify?.(KEY_CHANNEL, keyId);
    return rowToKey(rows[0]);
  }

  /** Revokes a key of this account only: another account's key is as unknown as a missing one. */
  async revokeKeyOf(accountId: string, keyId: string): Promise<ApiKey> {
    const { rows } = await this.db.query(`select id from api_keys where id = $1 and account_id = $2`, [
      keyId,
      accountId,
    ]);
    if (!rows.length) throw new NotFound("not_found", `this account has no key ${keyId}`, { context: { field: "id" } });
    return this.revokeKey(keyId);
  }

  /**
   * Finds the key and its account. Returns a reason instead when it is unknown, revoked or expired.
   * Cached for `cacheMs` (default 5 s) per process; revocation evicts at once.
   */
  async authenticate(
    token: string,
  ): Promise<{ key: ApiKey; account: Account } | { reason: "unknown" | "revoked" | "expired" }> {
    const fp = fingerprint(token);
    const now = Date.now();
    let hit = this.cache.get(fp);
    if (!hit || now - hit.at > (this.opts.cacheMs ?? 5000)) {
      const { rows } = await this.db.query(
        `select k.*, a.email, a.plan, a.credit_cents, a.billing_review, a.created_at as account_created_at, a.deleted_at
           from api_keys k join accounts a on a.id = k.account_id where k.fingerprint = $1`,
        [fp],
      );
      const r = rows[0];
      if (!r) {
        this.cache.delete(fp);
        return { reason: "unknown" };
      }
      // A deleted account's keys are revoked with it; one made after (by the admin CLI) counts as revoked too.
      if (r.deleted_at && !r.revoked_at) r.revoked_at = r.deleted_at;
      hit = {
        fp: r.fingerprint,
        key: rowToKey(r),
        account: rowToAccount({ ...r, id: r.account_id, created_at: r.account_created_at }),
        at: now,
      };
      this.cache.set(fp, hit);
    }
    if (!timingSafeEqual(Buffer.from(hit.fp, "hex"), Buffer.from(fp, "hex"))) return { reason: "unknown" };
    if (hit.key.revoked_at) return { reason: "revoked" };
    if (hit.key.expires_at && Date.parse(hit.key.expires_at) <= now) return { reason: "expired" };
    await this.touch(hit.key.id, now);
    return { key: hit.key, account: hit.account };
  }

  /** Writes last_used_at at most once a minute per key and process; a failed write is not the caller's problem. */
  private async touch(keyId: string, now: number): Promise<void> {
    if (now - (this.touched.get(keyId) ?? 0) < TOUCH_EVERY_MS) return;
    this.touched.set(keyId, now);
    if (this.touched.size > 10_000) this.touched.clear();
    await this.db
      .query(
        `update api_keys set last_used_at = now() where id = $1 and (last_used_at ` +
          `is null or last_used_at < now() - interval '1 minute')`,
        [keyId],
      )
      .catch(() => {});
  }

  async listKeys(accountId: string): Promise<ApiKey[]> {
    const { rows } = await this.db.query(`select * from api_keys where account_id = $1 order by created_at`, [
      accountId,
    ]);
    return rows.map(rowToKey);
  }
}
