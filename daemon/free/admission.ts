/**
 * The free tool's limits on a file about to be taken: its size and length for the tier, the
 * caller's files today, and the month's budget. FreeService.admit runs them in the transaction
 * that holds the month's budget row; the free page's upload address runs the daily and budget
 * ones first without the lock (daemon/free/uploads.ts), so nobody uploads 600 MB only to hear
 * that today's file was used.
 */
import { LimitReached } from "../domain/errors.js";
import type { Queryable } from "../store/db.js";
import type { FreeConfig } from "./config.js";
import { dayStart, nextDay } from "./keys.js";
import type { Measure } from "./probe.js";
import { tooLong } from "./view.js";

export function monthStart(now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 10);
}
export function nextMonth(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** The tier's longest file, in seconds. */
export const maxSeconds = (cfg: FreeConfig, anon: boolean) => (anon ? cfg.max_seconds_anon : cfg.max_seconds_key);

/** Refuses a measured file over the size or the tier's length, with both numbers. */
export function checkMeasure(cfg: FreeConfig, m: Measure, anon: boolean): void {
  if (m.size_bytes !== undefined && m.size_bytes > cfg.max_bytes) {
    throw new LimitReached("size", "too_big", `the file is ${m.size_bytes} bytes, over the limit of ${cfg.max_bytes}`, {
      context: { max_bytes: cfg.max_bytes, size_bytes: m.size_bytes },
    });
  }
  const max = maxSeconds(cfg, anon);
  if (m.measured && m.duration_seconds! > max) {
    const { code, message, ...lengths } = tooLong(anon, m.duration_seconds!, max, cfg);
    throw new LimitReached("size", code, message, { context: lengths });
  }
}

/**
 * Refuses when the caller has used today's files (or today's unmeasured one, for an unmeasured
 * file), or when `cost` cents would pass the month's budget or the no-key tier's share of it.
 */
export async function checkAllowance(
  q: Queryable,
  cfg: FreeConfig,
  who: { keyId: string | null; clientAddr: string },
  file: { measured: boolean; cost: number },
  budget: { spent_cents: unknown; anon_spent_cents: unknown } | undefined,
): Promise<void> {
  const anon = who.keyId === null;
  const resetsDay = nextDay().toISOString();
  const { rows } = await q.query(
    `select count(*)::int as n, count(*) filter (where not measured)::int as ` +
      `unmeasured from free_jobs where ${anon ? `key_id is null and client_addr = $1` : `key_id = $1`} ` +
      `and created_at >= $2`,
    [anon ? who.clientAddr : who.keyId, dayStart().toISOString()],
  );
  const perDay = anon ? cfg.files_per_day_anon : cfg.files_per_day_key;
  if (rows[0].n >= perDay) {
    throw anon
      ? new LimitReached(
          "quota",
          "anon_daily_limit",
          `without a key, ${perDay} file a day is allowed per client address; a free ` +
            `key allows ${cfg.files_per_day_key}`,
          { context: { limit: perDay, resets_at: resetsDay } },
        )
      : new LimitReached("quota", "daily_limit", `this key has used its ${perDay} files today`, {
          context: { limit: perDay, resets_at: resetsDay },
        });
  }
  if (!file.measured && rows[0].unmeasured >= cfg.unmeasured_per_day) {
    throw new LimitReached(
      "quota",
      "unmeasured_limit",
      `the file's server does not tell its length, and ${cfg.unmeasured_per_day} ` +
        `such file a day is allowed; use a server that sends Content-Length or ` +
        `answers Range requests`,
      {
        context: {
          limit: cfg.unmeasured_per_day,
          resets_at: resetsDay,
        },
      },
    );
  }
  const spent = Number(budget?.spent_cents ?? 0);
  const resetsMonth = nextMonth().toISOString();
  // A precheck (cost 0) refuses only a budget already spent; the admission, one that this file would pass.
  if (spent + file.cost > cfg.monthly_budget_cents || (file.cost === 0 && spent >= cfg.monthly_budget_cents)) {
    throw new LimitReached("capacity", "ceiling", "the free tool has spent its budget for this month", {
      context: { resets_at: resetsMonth },
    });
  }
  const anonSpent = Number(budget?.anon_spent_cents ?? 0);
  const share = cfg.monthly_budget_cents * cfg.anon_share;
  if (anon && (anonSpent + file.cost > share || (file.cost === 0 && anonSpent >= share))) {
    throw new LimitReached(
      "capacity",
      "anon_ceiling",
      "the no-key tier has spent its share of this month's budget; a free key " +
        "still works (POST /api/v1/transcribe/keys)",
      { context: { resets_at: resetsMonth } },
    );
  }
}
