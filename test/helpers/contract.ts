// Response validation for the API tier: every answer is checked against the OpenAPI document made
// from the operation registry (the schema of the matched operation and status, JSON Schema
// draft 2020-12), so an answer that drifts from what the document promises fails the test that
// saw it. Error answers are checked against the Error schema (or the operation's own).
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { templatePattern } from "../../facade/_fallback.js";
import { OPERATIONS } from "../../facade/app.js";
import { toOpenApi } from "../../facade/openapi.js";

type Responses = Record<string, { content?: Record<string, { schema?: unknown }> }>;
interface DocOperation {
  method: string;
  template: string;
  pattern: RegExp;
  params: number;
  id: string;
  responses: Responses;
}

const doc = toOpenApi(OPERATIONS, { version: "test", includeInternal: true });
const operations: DocOperation[] = Object.entries(doc.paths).flatMap(([template, item]) =>
  Object.entries(item as Record<string, { operationId: string; responses: Responses }>).map(([method, op]) => ({
    method: method.toUpperCase(),
    template,
    pattern: templatePattern(template),
    params: (template.match(/\{/g) ?? []).length,
    id: op.operationId,
    responses: op.responses,
  })),
);

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
const compiled = new Map<string, ValidateFunction>();

/** A validator for one schema of the document; its `#/components/...` refs resolve in the document. */
function validatorFor(cacheKey: string, schema: unknown): ValidateFunction {
  let v = compiled.get(cacheKey);
  if (!v) {
    v = ajv.compile({ components: doc.components, allOf: [schema] });
    compiled.set(cacheKey, v);
  }
  return v;
}

/** The document's operation for a request; a static segment wins over a path parameter, as in the router. */
export function matchOperation(method: string, path: string): DocOperation | undefined {
  const pathname = new URL(path, "http://x").pathname;
  const m = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
  return operations.filter((o) => o.method === m && o.pattern.test(pathname)).sort((a, b) => a.params - b.params)[0];
}

const show = (body: unknown) => {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
};

/** Why an answer does not match the document, or undefined when it does. */
export function contractProblem(method: string, path: string, status: number, body: unknown): string | undefined {
  if (method.toUpperCase() === "HEAD") return undefined;
  const op = matchOperation(method, path);
  const where = `${method.toUpperCase()} ${path} -> ${status}`;
  let schema: unknown;
  let key: string;
  if (!op) {
    if (status < 400)
      return `${where}: no operation in the OpenAPI document takes this request, yet it answered ${status}`;
    schema = { $ref: "#/components/schemas/Error" };
    key = "Error";
  } else {
    const documented = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
    if (!documented)
      return (
        `${where}: ${op.id} does not document status ${status} ` +
        `(it documents ${Object.keys(op.responses).join(", ")}); ` +
        `body ${show(body)}`
      );
    schema = documented.content?.["application/json"]?.schema;
    key = `${op.id} ${status}`;
    if (schema === undefined) return undefined; // not JSON (a file download) or no body promised
  }
  if (typeof body === "string")
    return `${where}: ${op?.id ?? "unknown route"} promises JSON, the answer is not JSON: ${show(body)}`;
  const validate = validatorFor(key, schema);
  if (validate(body)) return undefined;
  const errors = (validate.errors ?? [])
    .slice(0, 8)
    .map(
      (e) =>
        `${e.instancePath || "(body)"} ${e.message}` +
        (e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ""),
    );
  return (
    `${where}: the answer does not match ${op ? `${op.id}'s ${status} schema` : "the Error schema"} ` +
    `in the OpenAPI document:\n  ${errors.join("\n  ")}\nbody: ${show(body)}`
  );
}
