/**
 * Sign-in attempt limits (issue 27, finding 4). Failed sign-ins are rows in PostgreSQL
 * (signin_failures), so every facade process sharing the database applies the same limits:
 *
 * - per account and client address: `freeAttempts` failures, then the pair waits `backoffSeconds`,
 *   doubled at each further failure up to the window. A stranger's failures hold only the
 *   stranger's own address, never the owner's;
 * - per client address, all accounts together: `perAddress` in the window (one address spraying);
 * - per account, all addresses together: a high ceiling `perAccount` against guessing from many
 *   addresses. An address that signed in to the account in the last 30 days is not held by it, so
 *   even a distributed attack does not lock the owner out of a browser they use.
 *
 * Only failures count; a successful sign-in clears the failures of its account and address and
 * remembers the address as the account's (web_limit_hits "signin-ok:…").
 */
import type { Db } from "../store/db.js";
import { LimitReached } from "../domain/errors.js";
import { hasHit, recordHit } from "./hit-limits.js";

export interface SigninLimitConfig {
  perAddress: number;
  perAccount: number;
  freeAttempts: number;
  backoffSeconds: number;
  windowMinutes: number;
}

const KNOWN_SECONDS = 30 * 86400;

const subjects = (addr: string, email: string) => {
  const e = email.trim().toLowerCase();
  return { addr: `addr:${addr}`, email: `email:${e}`, pair: `pair:${e}|${addr}`, known: `signin-ok:${e}|${addr}` };
};

type Per = "address" | "account" | "account and address";

export class SigninLimits {
  constructor(
    private readonly db: Db,
    private readonly cfg: SigninLimitConfig,
  ) {}

  /** The wait of a pair after `n` failures, seconds (0: none yet); capped at the window. */
  backoff(n: number): number {
    if (n < this.cfg.freeAttempts) return 0;
    const doubled = this.cfg.backoffSeconds * 2 ** Math.min(30, n - this.cfg.freeAttempts);
    return Math.min(this.cfg.windowMinutes * 60, doubled);
  }

  /** Throws a quota LimitReached (429 rate_limited, retry_after in seconds) when a limit holds this attempt. */
  async check(addr: string, email: string): Promise<void> {
    const s = subjects(addr, email);
    const windowSeconds = this.cfg.windowMinutes * 60;
    const { rows } = await this.db.query<{ subject: string; n: number; oldest: number; since_last: number }>(
      `select subject, count(*)::int as n,
              extract(epoch from (min(failed_at) + make_interval(secs => $2::float8) - now()))::float8 as oldest,
              extract(epoch from (now() - max(failed_at)))::float8 as since_last
         from signin_failures where subject = any($1::text[]) and failed_at > now() - make_interval(secs => $2::float8)
        group by subject`,
      [[s.addr, s.email, s.pair], windowSeconds],
    );
    const by = new Map(rows.map((r) => [r.subject, r]));
    const pair = by.get(s.pair);
    if (pair) {
      const wait = Math.ceil(this.backoff(pair.n) - Number(pair.since_last));
      if (wait > 0) throw this.limited("account and address", this.cfg.freeAttempts, wait, pair.n);
    }
    const a = by.get(s.addr);
    if (a && a.n >= this.cfg.perAddress) throw this.limited("address", this.cfg.perAddress, Number(a.oldest), a.n);
    const acct = by.get(s.email);
    if (acct && acct.n >= this.cfg.perAccount && !(await hasHit(this.db, s.known, KNOWN_SECONDS)))
      throw this.limited("account", this.cfg.perAccount, Number(acct.oldest), acct.n);
  }

  private limited(per: Per, limit: number, seconds: number, failures: number): LimitReached {
    const retryAfter = Math.max(1, Math.ceil(seconds));
    const what =
      per === "account and address"
        ? `${failures} failed sign-ins to this account from this address ` +
          `(${limit} before waiting, each further one doubles the wait)`
        : `too many failed sign-ins for this ${per}: ${limit} in ${this.cfg.windowMinutes} minutes`;
    return new LimitReached("quota", "rate_limited", `${what}; retry in ${retryAfter} s`, {
      context: { retry_after: retryAfter, limit, per },
    });
  }

  async fail(addr: string, email: string): Promise<void> {
    const s = subjects(addr, email);
    await this.db.query(`insert into signin_failures (subject) values ($1), ($2), ($3)`, [s.addr, s.email, s.pair]);
    // Old rows go now and then, bounded by the index on (subject, failed_at).
    if (Math.random() < 0.05)
      await this.db.query(
        `delete from signin_failures where failed_at < now() - make_interval(secs => $1::float8 * 60)`,
        [this.cfg.windowMinutes],
      );
  }

  /** Clears the pair's failures (the account's others stay: a stranger's count is not the owner's to wipe). */
  async succeed(addr: string, email: string): Promise<void> {
    const s = subjects(addr, email);
    await this.db.query(`delete from signin_failures where subject = $1`, [s.pair]);
    await recordHit(this.db, s.known);
  }
}
