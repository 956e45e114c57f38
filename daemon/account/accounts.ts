/**
 * Accounts and API keys. A key is `svc_live_…` or `svc_test_…` plus 32 random bytes (base62-ish);
 * only its sha256 fingerprint is stored, and lookups go by fingerprint, so the comparison is on a
 * fixed-length digest (the final equality check is constant-time). Authenticated lookups are cached
 * in process for a short time; a revocation clears the cache entry at once in this process and,
 * through LISTEN/NOTIFY, in every other process on the same database. The rows, scopes and token
 * format are in account-rows.ts.
 */
import { randomUUID, timingSafeEqual } from "node:crypto";
import type { Db, Queryable } from "../store/db.js";
import { Conflict, NotFound, Refused } from "../domain/errors.js";
import { fingerprint, MAX_KEYS_PER_ACCOUNT, randomToken, rowToAccount, rowToKey, SCOPES } from "./account-rows.js";
import type { Account, ApiKey } from "./account-rows.js";

export {
  fingerprint,
  keyKind,
  MAX_KEYS_PER_ACCOUNT,
  readClipDefaults,
  saveClipDefaults,
  SCOPES,
} from "./account-rows.js";
export type { Account, ApiKey, Scope } from "./account-rows.js";

export const KEY_CHANNEL = "clipd_keys";

/** A key's last use is written at most this often, so authentication stays one read. */
const TOUCH_EVERY_MS = 60_000;

interface CachedKey {
  key: ApiKey;
  account: Account;
  fp: string;
  at: number;
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
