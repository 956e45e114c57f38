/**
 * runOperation: the one path every operation takes, whatever carried the request. Auth (as the
 * operation declares it) → rate limit → params and query → body → Idempotency-Key → handler →
 * error envelope. The HTTP adapter (facade/app.ts) is a thin shell over it, and so will the MCP
 * tool server and the website be: each builds a Caller, calls this, and writes the Answer out.
 *
 * Nothing here knows HTTP. What a transport must supply is in Caller; the body is read through
 * `readBody` only once auth and the rate limit have passed, so a refused caller's body is never
 * read (the HTTP adapter then closes the connection instead of draining it).
 */
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { Queryable } from "../../daemon/store/db.js";
import { faultEscape, faultPoint } from "../../daemon/ops/faults.js";
import { requireKey, type AuthContext } from "../auth.js";
import { bearerAudience } from "../oauth/urls.js";
import { requireSession } from "../web/session-auth.js";
import { ApiError, toErrorBody } from "../errors.js";
import { beginIdempotent, finishIdempotent, requestHash, type IdemScope } from "../idempotency.js";
import { assertOps } from "../ops-auth.js";
import { applyRate } from "../ratelimit.js";
import type { Operation, OperationContext } from "../registry.js";
import type { FacadeServices } from "../services.js";
import type { Caller } from "./caller.js";
import { findTextFault, textFault } from "./text.js";

export type { Caller, Surface } from "./caller.js";

export interface OperationInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** Reads the body; called only for operations that take one, after auth and the rate limit. */
  readBody?: () => Promise<unknown>;
}

/** What comes back: a status, a JSON body and headers, or a raw HTTP response. */
export type Answer =
  | {
      status: number;
      body: unknown;
      headers: Headers;
      bodyRead: boolean;
      /** The body's exact text, where it must go out byte for byte (an idempotent replay). */
      text?: string;
    }
  | { raw: Response };

/** A schema fault that says the value is not a usable link (`format: uri`, an `^https://` pattern). */
function isUrlFault(e: NonNullable<ValidateFunction["errors"]>[number]): boolean {
  const p = e.params as { format?: string; pattern?: string };
  return (
    (e.keyword === "format" && /^(uri|url|iri)/.test(p.format ?? "")) ||
    (e.keyword === "pattern" && /https/.test(p.pattern ?? ""))
  );
}

function describeAjvError(
  e: NonNullable<ValidateFunction["errors"]>[number],
  where: string,
): { field: string; message: string; code: "invalid_request" | "invalid_url" } {
  const base = e.instancePath.replace(/^\//, "").replace(/\//g, ".");
  // A link refused by its schema gets the same code as one refused by the URL check (net/public-url.ts).
  if (isUrlFault(e))
    return { field: base, code: "invalid_url", message: `${where} field "${base}" must be an absolute https:// URL` };
  if (e.keyword === "additionalProperties") {
    const field = [base, (e.params as { additionalProperty?: string }).additionalProperty].filter(Boolean).join(".");
    return { field, code: "invalid_request", message: `${where} field "${field}" is not allowed` };
  }
  if (e.keyword === "enum") {
    const allowed = (e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(", ");
    return { field: base, code: "invalid_request", message: `${where} field "${base}" must be one of ${allowed}` };
  }
  if (e.keyword === "required") {
    const field = [base, (e.params as { missingProperty?: string }).missingProperty].filter(Boolean).join(".");
    return { field, code: "invalid_request", message: `${where} field "${field}" is required` };
  }
  // Limits said as a person says them, not as the schema keyword ("must be <= 55").
  const said = plainLimit(e);
  if (said) return { field: base || where, code: "invalid_request", message: `${where} field "${base}" ${said}` };
  // A fault of the whole value (a body that is not an object, an empty PATCH) names it as a whole.
  return {
    field: base || where,
    code: "invalid_request",
    message: `${where} ${base ? `field "${base}" ` : ""}${e.message}`,
  };
}

/** A number's bound or kind in words, or undefined for any other fault. */
function plainLimit(e: NonNullable<ValidateFunction["errors"]>[number]): string | undefined {
  const limit = (e.params as { limit?: number }).limit;
  if (e.keyword === "maximum") return `must be at most ${limit}`;
  if (e.keyword === "minimum") return `must be at least ${limit}`;
  if (e.keyword === "type" && (e.params as { type?: string }).type === "integer") return "must be a whole number";
  return undefined;
}

/**
 * Refuses a string PostgreSQL could not store (NUL, lone surrogate) anywhere in `value`, naming its
 * field; a path through a deeply nested body is cut at 200 characters.
 */
function refuseBadText(value: unknown, where: "path" | "query" | "body"): void {
  const found = findTextFault(value);
  if (!found) return;
  const field = (found.field || where).replace(/^(.{200}).+$/s, "$1…");
  throw new ApiError(400, "invalid_request", `${where} ${found.field ? `field "${field}" ` : ""}${found.fault}`, {
    field,
  });
}

/** How an operation is authenticated, from what it declares. */
export function authKind(op: Operation): "key" | "ops" | "free-optional" | "public" | "session" {
  return op.auth ?? (op.scope !== null ? "key" : "public");
}

interface Checks {
  body?: ValidateFunction;
  query?: ValidateFunction;
  params?: ValidateFunction;
}

/**
 * An operation's schemas, compiled on its first call and kept. Compiling every operation's schemas
 * when the app is made cost about 0.7 s of each start (most of the daemon's own start-up work), and a
 * process that starts often (a CLI run, a restarted worker) calls few of them.
 */
function lazyChecks(op: Operation): () => Checks {
  let checks: Checks | undefined;
  return () => (checks ??= compileChecks(op));
}

/** An operation's body, query and path checks (a unit test compiles them all, as a start no longer does). */
export function compileChecks(op: Operation): Checks {
  const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: true });
  addFormats.default(ajv);
  // A query value is text in a URL: a number the schema states (with its bounds) is read from it.
  const queryAjv = new Ajv({ allErrors: false, strict: false, coerceTypes: true, useDefaults: true });
  addFormats.default(queryAjv);
  return {
    body: op.body ? ajv.compile(op.body) : undefined,
    query: op.query ? queryAjv.compile(op.query) : undefined,
    params: op.params ? ajv.compile({ type: "object", properties: op.params }) : undefined,
  };
}

/** Prepares an operation (its schemas are compiled on first use); the result runs it for any caller. */
export function prepareOperation(op: Operation, services: FacadeServices) {
  const checks = lazyChecks(op);
  const kind = authKind(op);
  const limited = op.rateLimited ?? (kind === "key" || kind === "session");

  return async function runOperation(input: OperationInput, caller: Caller): Promise<Answer> {
    const { body: checkBody, query: checkQuery, params: checkParams } = checks();
    const headers = new Headers({ "content-type": "application/json" });
    let idem: { scope: IdemScope; key: string; attempt: string } | undefined;
    let bodyRead = !op.body;
    const ctx: OperationContext = {
      params: input.params,
      query: input.query,
      body: undefined,
      services,
      caller,
      status: 200,
      settle: async () => {},
    };
    try {
      let auth: AuthContext | undefined;
      let authError: unknown;
      // Where an OAuth access token may stand in for a key: through /mcp only (facade/oauth/urls.ts).
      const audience = bearerAudience(caller, services);
      // On the web surface the signed-in session is the caller (an Authorization header is ignored there).
      if (caller.surface === "web" && (kind === "key" || kind === "session")) {
        auth = await requireSession(caller.web?.session, services.accounts, { apiOperation: kind === "key" }).catch(
          (err) => ((authError = err), undefined),
        );
      } else if (kind === "session")
        authError = new ApiError(
          401,
          "unauthorized",
          "this call is made by the website only, with a signed-in session",
        );
      else if (kind === "key")
        auth = await requireKey(caller.bearer, services.accounts, op.scope, audience).catch(
          (err) => ((authError = err), undefined),
        );
      // Counted before the key is judged, so refused keys (401, 403) are limited and answer the headers too.
      if (limited) applyRate(services.rates, auth ? auth.key.id : `ip:${caller.clientAddr}`, headers);
      if (authError) throw authError;
      if (kind === "ops") assertOps(caller, services.config.server.ops_token);
      ctx.auth = auth;
      refuseBadText(input.params, "path");
      refuseBadText(input.query, "query");
      const idemFault = op.idempotent && caller.idempotencyKey ? textFault(caller.idempotencyKey) : undefined;
      if (idemFault)
        throw new ApiError(400, "invalid_request", `the Idempotency-Key header ${idemFault}`, {
          field: "Idempotency-Key",
        });
      if (checkParams && !checkParams(input.params)) {
        const { field } = describeAjvError(checkParams.errors![0]!, "path");
        throw new ApiError(404, "not_found", `no such resource: ${field} "${input.params[field]}" is not a valid id`, {
          field,
        });
      }
      if (checkQuery && !checkQuery(input.query)) {
        const { field, message, code } = describeAjvError(checkQuery.errors![0]!, "query");
        throw new ApiError(400, code, message, { field });
      }
      if (op.body) {
        const sent = await input.readBody?.();
        // Where the published contract makes the body required, a missing one is refused, not taken as {}.
        if (sent === undefined && op.bodyRequired === true)
          throw new ApiError(
            400,
            "invalid_request",
            "body: a JSON object is required (send {} to take every default)",
            { field: "body" },
          );
        ctx.body = sent ?? {};
        bodyRead = true;
        // Before the schema, so a key that holds a NUL is named printably (the schema would echo it).
        refuseBadText(ctx.body, "body");
        if (!checkBody!(ctx.body)) {
          const { field, message, code } = describeAjvError(checkBody!.errors![0]!, "body");
          throw new ApiError(400, code, message, { field });
        }
      }
      const idemKey = op.idempotent && auth ? (caller.idempotencyKey ?? null) : null;
      if (idemKey !== null && auth) {
        // Test and live keys of one account keep separate records: neither replays the other's answer.
        const scope: IdemScope = { accountId: auth.account.id, livemode: auth.livemode };
        const start = await beginIdempotent(
          services.db,
          scope,
          idemKey,
          requestHash(
            op.method,
            op.path.replace(/\{(\w+)\}/g, (_, k: string) => input.params[k] ?? ""),
            ctx.body,
          ),
        );
        if ("replay" in start) {
          headers.set("Idempotent-Replayed", "true");
          return { status: start.replay.status, body: start.replay.body, text: start.replay.text, headers, bodyRead };
        }
        idem = { scope, key: idemKey, attempt: start.attempt };
      }
      let settled = false;
      ctx.settle = async (tx: Queryable, status: number, answer: unknown) => {
        if (!idem) return;
        await finishIdempotent(tx, idem.scope, idem.key, idem.attempt, status, answer, { inWork: true });
        settled = true;
      };
      const result = await op.handler(ctx);
      if (result instanceof Response) return { raw: result };
      faultPoint(`after-handler:${op.id}`);
      faultEscape(`after-handler:${op.id}`);
      // Work that settled its answer in its own transaction is recorded already.
      if (idem && !settled) await finishIdempotent(services.db, idem.scope, idem.key, idem.attempt, ctx.status, result);
      return { status: ctx.status, body: result, headers, bodyRead };
    } catch (err) {
      const { status, body } = toErrorBody(err);
      if (status >= 500) services.log.error({ err, op: op.id }, "operation failed");
      if (idem) await finishIdempotent(services.db, idem.scope, idem.key, idem.attempt, status, body).catch(() => {});
      return { status, body, headers, bodyRead };
    }
  };
}
