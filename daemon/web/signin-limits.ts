/**
 * Sign-in attempt limits: failed sign-ins are rows in PostgreSQL (signin_failures), counted per
 * client address and per e-mail over a sliding window, so every facade process sharing the database
 * applies the same limits. Only failures count; a successful sign-in clears its e-mail's failures.
 */
import type { Db } from "../store/db.js";
import { LimitReached } from "../domain/errors.js";

export interface SigninLimitConfig {
  perAddress: number;
  perAccount: number;
  windowMinutes: number;
}

const subjects = (addr: string, email: string) => ({
  addr: `addr:${addr}`,
  email: `email:${email.trim().toLowerCase()}`,
});

export class SigninLimits {
  constructor(
    private readonly db: Db,
    private readonly cfg: SigninLimitConfig,
  ) {}

  /** Throws a quota LimitReached (429 rate_limited, retry_after in seconds) when either limit is used up. */
  async check(addr: string, email: string): Promise<void> {
    const s = subjects(addr, email);
    const { rows } = await this.db.query<{ subject: string; n: number; oldest: number }>(
      `select subject, count(*)::int as n, extract(epoch from (min(failed_at) + make_interval(secs => $2::float8 * 60) - now()))::float8 as oldest
         from signin_failures where subject = any($1::text[]) and failed_at > now() - make_interval(secs => $2::float8 * 60)
        group by subject`,
      [[s.addr, s.email], this.cfg.windowMinutes],
    );
    for (const r of rows) {
      const limit = r.subject === s.addr ? this.cfg.perAddress : this.cfg.perAccount;
      if (r.n < limit) continue;
      const retryAfter = Math.max(1, Math.ceil(Number(r.oldest)));
      const per = r.subject === s.addr ? "this address" : "this account";
      throw new LimitReached(
        "quota",
        "rate_limited",
        `too many failed sign-ins for ${per}: ${limit} in ${this.cfg.windowMinutes} minutes; retry in ${retryAfter} s`,
        {
          context: { retry_after: retryAfter, limit, per: r.subject === s.addr ? "address" : "account" },
        },
      );
    }
  }

  async fail(addr: string, email: string): Promise<void> {
    const s = subjects(addr, email);
    await this.db.query(`insert into signin_failures (subject) values ($1), ($2)`, [s.addr, s.email]);
    // Old rows go now and then, bounded by the index on (subject, failed_at).
    if (Math.random() < 0.05)
      await this.db.query(
        `delete from signin_failures where failed_at < now() - make_interval(secs => $1::float8 * 60)`,
        [this.cfg.windowMinutes],
      );
  }

  async succeed(email: string): Promise<void> {
    await this.db.query(`delete from signin_failures where subject = $1`, [subjects("", email).email]);
  }
}
