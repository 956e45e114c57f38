/**
 * The h3 app (no listen here). Routes, validation and the OpenAPI document all come from the
 * operation registry; errors leave through one mapping (errors.ts).
 */
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { H3, getQuery, getRouterParams, type H3Event } from "h3";
import { readJsonBody, requestHasBody } from "./_body.js";
import { fallbackHandler } from "./_fallback.js";
import { requireKey, type AuthContext } from "./auth.js";
import { beginIdempotent, finishIdempotent, requestHash, type IdemScope } from "./idempotency.js";
import { ApiError, toErrorBody } from "./errors.js";
import { applyRate, clientId } from "./ratelimit.js";
import { toOpenApi } from "./openapi.js";
import { healthz } from "./operations/health.js";
import { getRun, startRun } from "./operations/runs.js";
import { adminCommand } from "./operations/admin.js";
import { ACCOUNT_OPERATIONS } from "./operations/account.js";
import { FILE_OPERATIONS } from "./operations/files.js";
import { TRANSCRIPT_OPERATIONS } from "./operations/transcripts.js";
import { WEBHOOK_OPERATIONS } from "./operations/webhooks.js";
import { FREE_OPERATIONS } from "./operations/free.js";
import type { Operation } from "./registry.js";
import type { Queryable } from "../daemon/store/db.js";
import { faultPoint } from "../daemon/kit/faults.js";
import type { FacadeServices } from "./services.js";

/** Default cap on a JSON request body (server.max_json_bytes). */
export const MAX_JSON_BYTES = 1024 * 1024;

export const OPERATIONS: Operation[] = [healthz, getRun, startRun, adminCommand, ...ACCOUNT_OPERATIONS, ...TRANSCRIPT_OPERATIONS, ...FILE_OPERATIONS, ...WEBHOOK_OPERATIONS, ...FREE_OPERATIONS];

function describeAjvError(e: NonNullable<ValidateFunction["errors"]>[number], where: string): { field: string; message: string } {
  const base = e.instancePath.replace(/^\//, "").replace(/\//g, ".");
  if (e.keyword === "additionalProperties") {
    const field = [base, (e.params as any).additionalProperty].filter(Boolean).join(".");
    return { field, message: `${where} field "${field}" is not allowed` };
  }
  if (e.keyword === "enum") {
    const allowed = ((e.params as any).allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ");
    return { field: base, message: `${where} field "${base}" must be one of ${allowed}` };
  }
  if (e.keyword === "required") {
    const field = [base, (e.params as any).missingProperty].filter(Boolean).join(".");
    return { field, message: `${where} field "${field}" is required` };
  }
  return { field: base, message: `${where} ${base ? `field "${base}" ` : ""}${e.message}` };
}

export function createFacade(services: FacadeServices, operations: Operation[] = OPERATIONS): H3 {
  const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: true });
  addFormats.default(ajv);
  const app = new H3({
    onError(error) {
      const { status, body } = toErrorBody(error);
      if (status >= 500) services.log.error({ err: error }, "request failed");
      return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    },
  });
  const maxJson: number = services.config.server.max_json_bytes ?? MAX_JSON_BYTES;
  for (const op of operations) {
    const checkBody = op.body ? ajv.compile(op.body) : undefined;
    const checkQuery = op.query ? ajv.compile(op.query) : undefined;
    const checkParams = op.params ? ajv.compile({ type: "object", properties: op.params }) : undefined;
    const route = op.path.replace(/\{(\w+)\}/g, ":$1");
    const needsKey = op.scope !== null || op.auth === "key";
    const limited = op.rateLimited ?? needsKey;
    app.on(op.method, route, async (event: H3Event) => {
      const headers = new Headers({ "content-type": "application/json" });
      let idem: { scope: IdemScope; key: string; attempt: string } | undefined;
      let bodyRead = !op.body;
      try {
        let auth: AuthContext | undefined;
        let authError: unknown;
        if (needsKey) auth = await requireKey(event, services.accounts, op.scope).catch((err) => ((authError = err), undefined));
        // Counted before the key is judged, so refused keys (401, 403) are limited and answer the headers too.
        if (limited) applyRate(services.rates, auth ? auth.key.id : clientId(event), headers);
        if (authError) throw authError;
        const params = (getRouterParams(event) ?? {}) as Record<string, string>;
        if (checkParams && !checkParams(params)) {
          const { field } = describeAjvError(checkParams.errors![0]!, "path");
          throw new ApiError(404, "not_found", `no such resource: ${field} "${params[field]}" is not a valid id`, { field });
        }
        const query = getQuery(event) as Record<string, unknown>;
        if (checkQuery && !checkQuery(query)) {
          const { field, message } = describeAjvError(checkQuery.errors![0]!, "query");
          throw new ApiError(400, "invalid_request", message, { field });
        }
        let body: unknown = undefined;
        if (op.body) {
          body = (await readJsonBody(event.req, maxJson)) ?? {};
          bodyRead = true;
          if (!checkBody!(body)) {
            const { field, message } = describeAjvError(checkBody!.errors![0]!, "body");
            throw new ApiError(400, "invalid_request", message, { field });
          }
        }
        const idemKey = op.idempotent && auth ? event.req.headers.get("idempotency-key") : null;
        if (idemKey !== null && auth) {
          // Test and live keys of one account keep separate records: neither replays the other's answer.
          const scope: IdemScope = { accountId: auth.account.id, livemode: auth.livemode };
          const start = await beginIdempotent(services.db, scope, idemKey, requestHash(op.method, new URL(event.req.url).pathname, body));
          if ("replay" in start) {
            headers.set("Idempotent-Replayed", "true");
            return new Response(JSON.stringify(start.replay.body), { status: start.replay.status, headers });
          }
          idem = { scope, key: idemKey, attempt: start.attempt };
        }
        let settled = false;
        const settle = async (tx: Queryable, status: number, answer: unknown) => {
          if (!idem) return;
          await finishIdempotent(tx, idem.scope, idem.key, idem.attempt, status, answer, { inWork: true });
          settled = true;
        };
        const result = await op.handler({ event, params, query, body, services, auth, settle });
        if (result instanceof Response) return result;
        const status = event.res.status ?? 200;
        faultPoint(`after-handler:${op.id}`);
        // Work that settled its answer in its own transaction is recorded already.
        if (idem && !settled) await finishIdempotent(services.db, idem.scope, idem.key, idem.attempt, status, result);
        return new Response(JSON.stringify(result), { status, headers });
      } catch (err) {
        const { status, body } = toErrorBody(err);
        if (status >= 500) services.log.error({ err, op: op.id }, "operation failed");
        if (idem) await finishIdempotent(services.db, idem.scope, idem.key, idem.attempt, status, body).catch(() => {});
        // Refused before its body was read: close rather than drain what the client is still sending.
        if (!bodyRead && requestHasBody(event.req)) headers.set("connection", "close");
        return new Response(JSON.stringify(body), { status, headers });
      }
    });
  }
  app.get("/openapi.json", () => toOpenApi(operations, { version: services.version, serverUrl: services.config.server.public_url, maxJsonBytes: maxJson }));
  const routes = [...operations.map((op) => ({ method: op.method, path: op.path })), { method: "GET", path: "/openapi.json" }];
  app.all("/**", fallbackHandler(services, routes));
  return app;
}
