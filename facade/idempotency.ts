/**
 * Idempotency-Key for POST and PATCH. Records live in PostgreSQL, scoped per account, so they hold
 * across facade processes. Within 24 h: the same key and body replays the first answer and starts
 * nothing; the same key with another body is 422; a repeat while the first is still running is 409.
 */
import { createHash } from "node:crypto";
import type { Db } from "../daemon/store/db.js";
import { ApiError } from "./errors.js";

export const IDEMPOTENCY_TTL_HOURS = 24;

export type IdemStart = { replay: { status: number; body: unknown } } | { fresh: true };

export function requestHash(method: string, path: string, body: unknown): string {
  return createHash("sha256").update(`${method} ${path}\n${JSON.stringify(body ?? null)}`).digest("hex");
}

export async function beginIdempotent(db: Db, accountId: string, key: string, hash: string): Promise<IdemStart> {
  if (key.length > 255) throw new ApiError(400, "invalid_request", "Idempotency-Key is at most 255 characters", { field: "Idempotency-Key" });
  return db.transaction(async (tx) => {
    await tx.query(`delete from idempotency where account_id = $1 and key = $2 and created_at < now() - make_interval(hours => $3)`, [accountId, key, IDEMPOTENCY_TTL_HOURS]);
    const ins = await tx.query(
      `insert into idempotency (account_id, key, request_hash, state) values ($1, $2, $3, 'running') on conflict (account_id, key) do nothing returning key`,
      [accountId, key, hash],
    );
    if (ins.rows.length) return { fresh: true } as const;
    const { rows } = await tx.query(`select request_hash, state, status, body from idempotency where account_id = $1 and key = $2`, [accountId, key]);
    const r = rows[0];
    if (r.request_hash !== hash) throw new ApiError(422, "idempotency_mismatch", "this Idempotency-Key was used with a different request; use a new key", { field: "Idempotency-Key" });
    if (r.state === "running") throw new ApiError(409, "idempotency_in_progress", "a request with this Idempotency-Key is still running; retry shortly", { field: "Idempotency-Key" });
    return { replay: { status: r.status, body: typeof r.body === "string" ? JSON.parse(r.body) : r.body } } as const;
  });
}

export async function finishIdempotent(db: Db, accountId: string, key: string, status: number, body: unknown): Promise<void> {
  if (status >= 500) {
    // A server error is not an answer to replay: free the key for a retry.
    await db.query(`delete from idempotency where account_id = $1 and key = $2`, [accountId, key]);
    return;
  }
  await db.query(`update idempotency set state = 'done', status = $3, body = $4 where account_id = $1 and key = $2`, [accountId, key, status, JSON.stringify(body ?? null)]);
}
