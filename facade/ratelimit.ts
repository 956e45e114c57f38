/**
 * Per-key rate limits in fixed windows, kept in PostgreSQL so every facade process shares them.
 * Hot path: each process counts locally and adds its counts to the shared row in one batched
 * upsert at most every `flushMs`; the decision uses the shared count last read plus the local
 * count since. Across processes a limit can be overshot by what one flush interval lets through.
 */
import { getRequestIP, type H3Event } from "h3";
import type { Db } from "../daemon/store/db.js";
import { ApiError } from "./errors.js";

export interface RateDecision {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
  allowed: boolean;
}

interface Counter {
  window: number;
  /** The window's total in the shared table, as the last flush read it back (this process's sent counts included). */
  shared: number;
  /** Counts taken here and not yet sent. */
  pending: number;
  /** Counts on their way to the table: neither pending nor in `shared` until the flush returns. */
  sending: number;
}

export class RateLimiter {
  private counters = new Map<string, Counter>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(
    private readonly db: Db,
    private readonly opts: { limit: number; windowSeconds: number; flushMs?: number },
  ) {}

  start() {
    this.timer = setInterval(() => void this.flush(), this.opts.flushMs ?? 100);
    this.timer.unref();
  }

  async stop() {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  take(id: string): RateDecision {
    const nowS = Date.now() / 1000;
    const window = Math.floor(nowS / this.opts.windowSeconds) * this.opts.windowSeconds;
    let c = this.counters.get(id);
    if (!c || c.window !== window) {
      c = { window, shared: 0, pending: 0, sending: 0 };
      this.counters.set(id, c);
    }
    const used = c.shared + c.sending + c.pending;
    const reset = Math.max(1, Math.ceil(window + this.opts.windowSeconds - nowS));
    if (used >= this.opts.limit) return { limit: this.opts.limit, remaining: 0, reset, allowed: false };
    c.pending++;
    return { limit: this.opts.limit, remaining: Math.max(0, this.opts.limit - used - 1), reset, allowed: true };
  }

  /** Adds local counts to the shared rows and reads back the totals. */
  flush(): Promise<void> {
    this.flushing ??= (async () => {
      let sent: ReadonlyArray<readonly [string, Counter, number]> = [];
      try {
        const batch = [...this.counters.entries()].filter(([, c]) => c.pending > 0);
        if (!batch.length) return;
        const ids = batch.map(([id]) => id);
        const windows = batch.map(([, c]) => c.window);
        const adds = batch.map(([, c]) => c.pending);
        for (const [, c] of batch) {
          c.sending += c.pending;
          c.pending = 0;
        }
        sent = batch.map(([id, c], i) => [id, c, adds[i]!] as const);
        const { rows } = await this.db.query<{ key_id: string; window_start: string; count: number }>(
          `insert into rate_counters (key_id, window_start, count)
             select * from unnest($1::text[], $2::bigint[], $3::int[])
           on conflict (key_id, window_start) do update set count = rate_counters.count + excluded.count
           returning key_id, window_start, count`,
          [ids, windows, adds],
        );
        // The totals include what was just sent; counts taken while the query ran stay pending.
        for (const [, c, n] of sent) c.sending -= n;
        for (const r of rows) {
          const c = this.counters.get(r.key_id);
          if (c && c.window === Number(r.window_start)) c.shared = r.count;
        }
        sent = [];
        // Old windows are dropped now and then.
        if (Math.random() < 0.01)
          await this.db.query(`delete from rate_counters where window_start < $1`, [
            Math.floor(Date.now() / 1000) - 86400,
          ]);
      } catch {
        // A failed flush gives its counts back; the next one retries.
        for (const [, c, n] of sent) {
          c.sending -= n;
          c.pending += n;
        }
      } finally {
        this.flushing = undefined;
      }
    })();
    return this.flushing;
  }
}

/** Whom a request without a usable key is counted against: its client address. */
export function clientId(event: H3Event): string {
  return `ip:${getRequestIP(event) ?? "unknown"}`;
}

/**
 * Counts one request against `id` and writes the RateLimit-* headers onto `headers`; over the
 * limit it adds Retry-After and throws the 429. Call it once per request: each call is a request.
 */
export function applyRate(rates: RateLimiter, id: string, headers: Headers): void {
  const rate = rates.take(id);
  headers.set("RateLimit-Limit", String(rate.limit));
  headers.set("RateLimit-Remaining", String(rate.remaining));
  headers.set("RateLimit-Reset", String(rate.reset));
  if (!rate.allowed) {
    headers.set("Retry-After", String(rate.reset));
    throw new ApiError(429, "rate_limited", `too many requests: ${rate.limit} per window; retry in ${rate.reset} s`, {
      retry_after: rate.reset,
      limit: rate.limit,
    });
  }
}
