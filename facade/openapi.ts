/** Builds the OpenAPI 3.1 document from the operation registry. */
import type { Operation } from "./registry.js";

const ERROR_SCHEMA = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "string" }, message: { type: "string" } },
      additionalProperties: true,
    },
  },
};

export function toOpenApi(ops: Operation[], opts: { version: string; includeInternal?: boolean; serverUrl?: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of ops) {
    if (op.internal && !opts.includeInternal) continue;
    const parameters = [
      ...Object.entries(op.params ?? {}).map(([name, schema]) => ({ name, in: "path", required: true, schema })),
      ...Object.entries(((op.query as any)?.properties ?? {}) as Record<string, unknown>).map(([name, schema]) => ({ name, in: "query", required: false, schema })),
    ];
    const responses: Record<string, unknown> = {};
    const keyed = op.scope !== null || op.auth === "key";
    // The errors every operation of its kind can give, added so no document omits them.
    const common: Record<string, string | undefined> = {
      ...(op.body || op.query ? { 400: "Invalid request; error.field names the field" } : {}),
      ...(keyed ? { 401: "Missing, unknown, revoked or expired key", 403: "The key lacks the scope, or the account is under billing review" } : {}),
      ...(op.params ? { 404: "Not found on this account" } : {}),
      ...(op.idempotent ? { 409: "A request with this Idempotency-Key is still running", 422: "This Idempotency-Key was used with a different request" } : {}),
      ...(keyed || op.rateLimited ? { 429: "Rate limited; see Retry-After" } : {}),
    };
    const all: Operation["responses"] = { ...Object.fromEntries(Object.entries(common).map(([k, d]) => [k, { description: d ?? "" }])), ...op.responses };
    if (!Object.keys(all).some((k) => k.startsWith("4"))) (all as Record<string, { description: string }>)["4XX"] = { description: "Client error" };
    for (const [status, r] of Object.entries(all)) {
      const schema = /^[45]/.test(status) ? (r.schema ?? { $ref: "#/components/schemas/Error" }) : r.schema;
      responses[status] = { description: r.description, ...(schema ? { content: { "application/json": { schema } } } : {}) };
    }
    (paths[op.path] ??= {})[op.method.toLowerCase()] = {
      operationId: op.id,
      summary: op.summary,
      tags: op.tags,
      security: op.scope ? [{ bearer: [op.scope] }] : op.auth === "key" ? [{ bearer: [] }] : [],
      ...(op.scope ? { "x-scope": op.scope } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: op.body } } } } : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "clipd API",
      version: "1.0.0",
      description: `clipd ${opts.version}: clips and transcripts from long recordings. Errors use the envelope { error: { code, message, ...context } }.`,
      license: { name: "Proprietary", identifier: "LicenseRef-clipd-proprietary" },
    },
    servers: [{ url: opts.serverUrl || "/", description: "this clipd server" }],
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
  };
}
