/**
 * Counted limits of the website's costly or abusable calls (reset and verification mails, sign-ups):
 * one row per granted event in web_limit_hits (migration 023), counted per subject over a sliding
 * window in the database, so every facade process shares them. A call names every rule it must pass
 * (say, per account and per client address); either all are under their limit and one hit is
 * recorded for each, or none is recorded. Refused attempts are not counted, so an owner's own
 * request competes only with granted ones. The subjects' advisory locks make check-then-record
 * atomic across processes on PostgreSQL (PGlite has one connection anyway).
 */
import type { Db } from "../store/db.js";

export interface HitRule {
  /** What is counted, e.g. "reset:acct:<email>"; compared as is. */
  subject: string;
  limit: number;
  windowSeconds: number;
  /** What the limit is per, for the refusal ("account", "address"). */
  per: string;
}

export type HitAnswer = { ok: true } | { ok: false; rule: HitRule; retryAfter: number };

/** Sweep rows older than every window (a month) now and then. */
const KEEP_SECONDS = 31 * 86400;

export async function takeHit(db: Db, rules: HitRule[]): Promise<HitAnswer> {
  const answer = await db.transaction(async (tx): Promise<HitAnswer> => {
    // Sorted, so two calls locking the same subjects cannot wait on each other.
    for (const s of [...new Set(rules.map((r) => r.subject))].sort())
      await tx.query(`select pg_advisory_xact_lock(hashtext($1))`, [`clipd-hit:${s}`]);
    for (const rule of rules) {
      const { rows } = await tx.query<{ n: number; wait: number | null }>(
        `select count(*)::int as n,
                extract(epoch from (min(hit_at) + make_interval(secs => $2::float8) - now()))::float8 as wait
           from web_limit_hits where subject = $1 and hit_at > now() - make_interval(secs => $2::float8)`,
        [rule.subject, rule.windowSeconds],
      );
      const r = rows[0]!;
      if (r.n >= rule.limit) return { ok: false, rule, retryAfter: Math.max(1, Math.ceil(Number(r.wait ?? 1))) };
    }
    for (const rule of rules) await tx.query(`insert into web_limit_hits (subject) values ($1)`, [rule.subject]);
    return { ok: true };
  });
  if (Math.random() < 0.02)
    await db.query(`delete from web_limit_hits where hit_at < now() - make_interval(secs => $1::float8)`, [
      KEEP_SECONDS,
    ]);
  return answer;
}

/** Records one event without a limit (a successful sign-in from an address). */
export async function recordHit(db: Db, subject: string): Promise<void> {
  await db.query(`insert into web_limit_hits (subject) values ($1)`, [subject]);
}

/** Whether `subject` has a row newer than `windowSeconds`. */
export async function hasHit(db: Db, subject: string, windowSeconds: number): Promise<boolean> {
  const { rows } = await db.query(
    `select 1 from web_limit_hits where subject = $1 and hit_at > now() - make_interval(secs => $2::float8) limit 1`,
    [subject, windowSeconds],
  );
  return rows.length > 0;
}
