/**
 * API errors. Every refusal leaves the facade as `{ error: { code, message, ...context } }`; this is
 * the one place that maps internal errors to that envelope and an HTTP status.
 */
import { NetRefusal } from "../daemon/net/public-url.js";

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

export function toErrorBody(err: unknown): { status: number; body: { error: Record<string, unknown> } } {
  if (err instanceof ApiError) {
    return { status: err.status, body: { error: { code: err.code, message: err.message, ...err.context } } };
  }
  if (err instanceof NetRefusal) return { status: 400, body: { error: { code: err.code, message: err.message, ...err.context } } };
  const e = err as { name?: string; code?: string; message?: string; status?: number };
  if (e?.name === "AccountError") {
    const a = err as { status: number; code: string; message: string; context?: Record<string, unknown> };
    return { status: a.status, body: { error: { code: a.code, message: a.message, ...(a.context ?? {}) } } };
  }
  if (e?.name === "RunError") {
    const status = e.code === "not_found" ? 404 : 400;
    return { status, body: { error: { code: e.code, message: e.message } } };
  }
  if (e?.name === "HTTPError" && typeof e.status === "number" && e.status < 500) {
    return { status: e.status, body: { error: { code: e.status === 404 ? "not_found" : "bad_request", message: e.message } } };
  }
  return { status: 500, body: { error: { code: "internal", message: "internal error; the details are in the server log" } } };
}
