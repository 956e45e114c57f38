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

export function toOpenApi(ops: Operation[], opts: { version: string; includeInternal?: boolean }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of ops) {
    if (op.internal && !opts.includeInternal) continue;
    const parameters = [
      ...Object.entries(op.params ?? {}).map(([name, schema]) => ({ name, in: "path", required: true, schema })),
      ...Object.entries(((op.query as any)?.properties ?? {}) as Record<string, unknown>).map(([name, schema]) => ({ name, in: "query", required: false, schema })),
    ];
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(op.responses)) {
      const schema = Number(status) >= 400 ? (r.schema ?? { $ref: "#/components/schemas/Error" }) : r.schema;
      responses[status] = { description: r.description, ...(schema ? { content: { "application/json": { schema } } } : {}) };
    }
    (paths[op.path] ??= {})[op.method.toLowerCase()] = {
      operationId: op.id,
      summary: op.summary,
      tags: op.tags,
      ...(op.scope ? { security: [{ bearer: [op.scope] }], "x-scope": op.scope } : op.auth === "key" ? { security: [{ bearer: [] }] } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: op.body } } } } : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "clipd API", version: opts.version },
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
  };
}
