/**
 * The h3 app (no listen here). Routes, validation and the OpenAPI document all come from the
 * operation registry; errors leave through one mapping (errors.ts).
 */
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { H3, getQuery, getRouterParams, readBody, type H3Event } from "h3";
import { ApiError, toErrorBody } from "./errors.js";
import { toOpenApi } from "./openapi.js";
import { healthz } from "./operations/health.js";
import { getRun, startRun } from "./operations/runs.js";
import type { Operation } from "./registry.js";
import type { FacadeServices } from "./services.js";

export const OPERATIONS: Operation[] = [healthz, getRun, startRun];

function describeAjvError(e: NonNullable<ValidateFunction["errors"]>[number], where: string): { field: string; message: string } {
  const base = e.instancePath.replace(/^\//, "").replace(/\//g, ".");
  if (e.keyword === "additionalProperties") {
    const field = [base, (e.params as any).additionalProperty].filter(Boolean).join(".");
    return { field, message: `${where} field "${field}" is not allowed` };
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
  for (const op of operations) {
    const checkBody = op.body ? ajv.compile(op.body) : undefined;
    const checkQuery = op.query ? ajv.compile(op.query) : undefined;
    const checkParams = op.params ? ajv.compile({ type: "object", properties: op.params }) : undefined;
    const route = op.path.replace(/\{(\w+)\}/g, ":$1");
    app.on(op.method, route, async (event: H3Event) => {
      try {
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
          try {
            body = await readBody(event);
          } catch (err) {
            throw new ApiError(400, "invalid_json", "the request body is not valid JSON", {}, { cause: err });
          }
          body ??= {};
          if (!checkBody!(body)) {
            const { field, message } = describeAjvError(checkBody!.errors![0]!, "body");
            throw new ApiError(400, "invalid_request", message, { field });
          }
        }
        return await op.handler({ event, params, query, body, services });
      } catch (err) {
        const { status, body } = toErrorBody(err);
        if (status >= 500) services.log.error({ err, op: op.id }, "operation failed");
        return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
      }
    });
  }
  app.get("/openapi.json", () => toOpenApi(operations, { version: services.version }));
  app.all("/**", (event) => {
    const { body } = toErrorBody(new ApiError(404, "not_found", `no route for ${event.req.method} ${new URL(event.req.url).pathname}`));
    return new Response(JSON.stringify(body), { status: 404, headers: { "content-type": "application/json" } });
  });
  return app;
}
