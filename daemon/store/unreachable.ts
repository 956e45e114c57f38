/**
 * A database that cannot be reached (stopped, restarting, hung, the network cut) is the service's
 * capacity for the moment, not a fault in the request: the API answers it 503
 * `database_unavailable` (a `LimitReached` of kind capacity, facade/errors.ts) instead of 500
 * `internal`, so clients know to try again. Only connection failures are turned: a statement the
 * server refused (a constraint, a serialization failure) keeps its own error and code.
 */
import { LimitReached } from "../domain/errors.js";

const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
// SQLSTATE class 08 (connection exception), and the server going down or not up yet.
const SERVER_GONE = /^08|^57P0[123]$/;
// What pg says when the socket ends under it or a connect times out (no code on these).
const PG_MESSAGES =
  /Connection terminated|connection error|timeout exceeded when trying to connect|Connection timeout/i;

export function isUnreachable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  if (!e || err instanceof LimitReached) return false;
  if (typeof e.code === "string" && (SOCKET_CODES.has(e.code) || SERVER_GONE.test(e.code))) return true;
  return typeof e.message === "string" && PG_MESSAGES.test(e.message);
}

/** `err` as 503 database_unavailable when it says the database cannot be reached, else `err`. */
export function unreachableOr(err: unknown): unknown {
  if (!isUnreachable(err)) return err;
  return new LimitReached(
    "capacity",
    "database_unavailable",
    "the database cannot be reached just now; try again in a few seconds",
    {
      context: { limit: "database" },
      cause: err,
    },
  );
}
