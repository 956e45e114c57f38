/**
 * API errors. Every refusal leaves the facade as `{ error: { code, message, ...context } }`; this is
 * the one place that maps errors to that envelope and an HTTP status, by their class: the domain's
 * refusals (daemon/domain/errors.ts, `NetRefusal` among them as a `Refused`), the engine's `RunError`,
 * h3's own `HTTPError` below 500, and `ApiError`, the facade's own refusals, which carry their status.
 */
import {
  Conflict,
  DomainError,
  LimitReached,
  NotFound,
  PaymentRequired,
  Unauthorized,
  type LimitKind,
} from "../daemon/domain/errors.js";
import { HTTPError } from "h3";
import { RunError } from "../daemon/engine/run.js";
import { InsufficientStorage } from "../daemon/storage/disk-full.js";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly context: Record<string, unknown> = {},
    opts?: { cause?: unknown },
  ) {
    super(message, opts);
    this.name = "ApiError";
  }
}

/** The HTTP status of each kind of limit: too large, the caller's allowance used, none left for anyone. */
const LIMIT_STATUS: Record<LimitKind, number> = { size: 413, quota: 429, capacity: 503 };

/** The HTTP status of a domain refusal, by its kind. */
function domainStatus(err: DomainError): number {
  if (err instanceof NotFound) return 404;
  if (err instanceof Conflict) return 409;
  if (err instanceof PaymentRequired) return 402;
  if (err instanceof Unauthorized) return 401;
  if (err instanceof LimitReached) return LIMIT_STATUS[err.limit];
  return 400; // Refused: the caller's mistake
}

const envelope = (status: number, code: string, message: string, context: Record<string, unknown> = {}) => ({
  status,
  body: { error: { code, message, ...context } },
});

export function toErrorBody(err: unknown): { status: number; body: { error: Record<string, unknown> } } {
  if (err instanceof ApiError) return envelope(err.status, err.code, err.message, err.context);
  if (err instanceof DomainError) return envelope(domainStatus(err), err.code, err.message, err.context);
  // a full disk (daemon/storage/disk-full.ts)
  if (err instanceof InsufficientStorage) return envelope(507, err.code, err.message, err.details);
  if (err instanceof RunError)
    return envelope(err.code === "not_found" ? 404 : 400, err.code, err.message, err.field ? { field: err.field } : {});
  // h3's own 400 comes from a path it cannot decode (a malformed %-escape): the path is the field.
  if (err instanceof HTTPError && err.status === 400)
    return envelope(400, "invalid_request", "the request path has a malformed %-escape and cannot be decoded", {
      field: "path",
    });
  if (err instanceof HTTPError && err.status < 500)
    return envelope(err.status, err.status === 404 ? "not_found" : "bad_request", err.message);
  return envelope(500, "internal", "internal error; the details are in the server log");
}
