/**
 * Idempotency-Key for POST and PATCH. Records live in PostgreSQL, scoped per account and key mode
 * (test keys and live keys of one account never share a record), so they hold across facade
 * processes. Within 24 h: the same key and body replays the first answer and starts nothing; the
 * same key with another body is 422; a repeat while the first is still running is 409.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Db, Queryable } from "../daemon/store/db.js";
import { ApiError } from "./errors.js";

export const IDEMPOTENCY_TTL_HOURS = 24;
export const IDEMPOTENCY_KEY_MAX = 255;
/**
 * A record still "running" after this long belongs to a request that died before its work
 * committed: work that commits writes its answer in the same transaction (OperationContext.settle),
 * so such a record guards nothing and a retry may take it over.
 */
export const IDEMPOTENCY_STALE_SECONDS = 60;

/** Whose records a key is looked up among: one account, in one mode. */
export interface IdemScope {
  accountId: string;
  livemode: boolean;
}

/**
 * A replay of the first answer, or a fresh start owning the record by its `attempt` token. `text`
 * is the first answer's body exactly as it was sent (byte for byte), absent on older records.
 */
export type IdemStart = { replay: { status: number; body: unknown; text?: string } } | { fresh: true; attempt: string };

/** The body text an answer is sent as: the one serialisation, shared by the first answer and its record. */
export function answerText(body: unknown): string {
  return JSON.stringify(body ?? null);
}

export function requestHash(method: string, path: string, body: unknown): string {
  return createHash("sha256")
    .update(`${method} ${path}\n${JSON.stringify(body ?? null)}`)
    .digest("hex");
}

/** Refuses a header value that cannot be a key: empty (a client bug, not a key) or too long. */
export function checkIdempotencyKey(key: string): void {
  const field = "Idempotency-Key";
  if (key.length === 0)
    throw new ApiError(
      400,
      "invalid_request",
      "the Idempotency-Key header is empty; send a unique value (for example a UUID) or leave the header out",
      { field },
    );
  if (key.length > IDEMPOTENCY_KEY_MAX) {
    throw new ApiError(
      400,
      "invalid_request",
      `Idempotency-Key is at most ${IDEMPOTENCY_KEY_MAX} characters (this one has ${key.length})`,
      { field, max_length: IDEMPOTENCY_KEY_MAX },
    );
  }
}

export async function beginIdempotent(db: Db, scope: IdemScope, key: string, hash: string): Promise<IdemStart> {
  checkIdempotencyKey(key);
  const { accountId, livemode } = scope;
  const attempt = randomUUID();
  return db.transaction(async (tx) => {
    await tx.query(
      `delete from idempotency where account_id = $1 and livemode = $2 and key ` +
        `= $3 and created_at < now() - make_interval(hours => $4)`,
      [accountId, livemode, key, IDEMPOTENCY_TTL_HOURS],
    );
    const ins = await tx.query(
      `insert into idempotency (account_id, livemode, key, request_hash, state, ` +
        `attempt) values ($1, $2, $3, $4, 'running', $5) on conflict (account_id, ` +
        `livemode, key) do nothing returning key`,
      [accountId, livemode, key, hash, attempt],
    );
    if (ins.rows.length) return { fresh: true, attempt } as const;
    const { rows } = await tx.query(
      `select request_hash, state, status, body, body_text, created_at < now() - make_interval(secs ` +
        `=> $4) as stale from idempotency where account_id = $1 and livemode = ` +
        `$2 and key = $3`,
      [accountId, livemode, key, IDEMPOTENCY_STALE_SECONDS],
    );
    const r = rows[0];
    if (r.request_hash !== hash)
      throw new ApiError(
        422,
        "idempotency_mismatch",
        "this Idempotency-Key was used with a different request; use a new key",
        { field: "Idempotency-Key" },
      );
    if (r.state === "running" && r.stale) {
      // Only one retry can take a stale record over: the update re-checks it under the row lock.
      const took = await tx.query(
        `update idempotency set created_at = now(), attempt = $4 where account_id ` +
          `= $1 and livemode = $2 and key = $3 and state = 'running' and created_at ` +
          `< now() - make_interval(secs => $5) returning key`,
        [accountId, livemode, key, attempt, IDEMPOTENCY_STALE_SECONDS],
      );
      if (took.rows.length) return { fresh: true, attempt } as const;
    }
    if (r.state === "running")
      throw new ApiError(
        409,
        "idempotency_in_progress",
        "a request with this Idempotency-Key is still running; retry shortly",
        { field: "Idempotency-Key" },
      );
    const body = typeof r.body === "string" ? JSON.parse(r.body) : r.body;
    return {
      replay: { status: r.status, body, ...(r.body_text == null ? {} : { text: String(r.body_text) }) },
    } as const;
  });
}

/**
 * Stores the answer to replay, if this attempt still owns the record. `q` may be the transaction
 * of the work itself: there, losing the record to a retry that took it over is an error, so the
 * slow attempt's work rolls back rather than running twice.
 */
export async function finishIdempotent(
  q: Queryable,
  scope: IdemScope,
  key: string,
  attempt: string,
  status: number,
  body: unknown,
  opts: { inWork?: boolean } = {},
): Promise<void> {
  const { accountId, livemode } = scope;
  const mine = `account_id = $1 and livemode = $2 and key = $3 and attempt = $4 and state = 'running'`;
  if (status >= 500) {
    // A server error is not an answer to replay: free the key for a retry.
    await q.query(`delete from idempotency where ${mine}`, [accountId, livemode, key, attempt]);
    return;
  }
  const { rows } = await q.query(
    `update idempotency set state = 'done', status = $5, body = $6, body_text = $7 where ${mine} returning key`,
    [accountId, livemode, key, attempt, status, answerText(body), answerText(body)],
  );
  if (!rows.length && opts.inWork) {
    throw new ApiError(
      409,
      "idempotency_in_progress",
      "another request with this Idempotency-Key took over; nothing was done by this one",
      { field: "Idempotency-Key" },
    );
  }
}
