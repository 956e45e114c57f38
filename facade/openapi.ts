/** Builds the OpenAPI 3.1 document from the operation registry. */
import { IDEMPOTENCY_KEY_MAX } from "./idempotency.js";
import { servedOn, type Operation } from "./registry.js";

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

const integerHeader = (description: string) => ({ description, schema: { type: "integer", minimum: 0 } });
const HEADERS = {
  "RateLimit-Limit": integerHeader(
    "Requests this key (or, without a key, this client address) may make in each window",
  ),
  "RateLimit-Remaining": integerHeader("Requests left in the current window"),
  "RateLimit-Reset": integerHeader("Seconds until the current window ends"),
  "Retry-After": integerHeader("Seconds to wait before trying again"),
  Allow: { description: "The methods this path takes", schema: { type: "string" } },
};
const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });
const RATE_HEADERS = {
  "RateLimit-Limit": headerRef("RateLimit-Limit"),
  "RateLimit-Remaining": headerRef("RateLimit-Remaining"),
  "RateLimit-Reset": headerRef("RateLimit-Reset"),
};

const IDEMPOTENCY_KEY = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes a retry safe: within 24 hours the same key with the same body returns " +
    "the first answer and starts nothing new; with another body it is 422, " +
    "while the first is still running 409. Test and live keys keep separate " +
    "records. An empty value is 400.",
  schema: { type: "string", minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX },
};

/** The errors every operation of its kind can give, added so no document omits them. */
function commonResponses(op: Operation, keyed: boolean, limited: boolean, maxJson: string): Record<string, string> {
  return {
    ...(op.body || op.query || op.idempotent
      ? { 400: "Invalid request; error.field names the field (or the Idempotency-Key header)" }
      : {}),
    ...(keyed
      ? {
          401: "Missing, unknown, revoked or expired key",
          403: "The key lacks the scope, or the account is under billing review",
        }
      : {}),
    ...(op.auth === "ops"
      ? { 401: "Missing or wrong ops token (server.ops_token, or ops.token in the data folder)" }
      : {}),
    ...(op.params ? { 404: "Not found on this account" } : {}),
    405:
      "This path does not take the method sent; the Allow header lists the ones " +
      "it takes (error.code method_not_allowed)",
    ...(op.idempotent
      ? {
          409: "A request with this Idempotency-Key is still running",
          422: "This Idempotency-Key was used with a different request",
        }
      : {}),
    ...(op.body
      ? {
          413:
            `body_too_large: the JSON body is over the server's limit (error.max_bytes), ` +
            `refused before it is read in full (limit here: ${maxJson})`,
          415: "unsupported_media_type: the body was sent with a Content-Type other than application/json",
        }
      : {}),
    ...(limited ? { 429: "Rate limited; error.retry_after and Retry-After say when to try again" } : {}),
  };
}

function responseHeaders(status: string, limited: boolean): Record<string, unknown> | undefined {
  const headers: Record<string, unknown> = {
    ...(limited ? RATE_HEADERS : {}),
    ...(status === "429" ? { "Retry-After": headerRef("Retry-After") } : {}),
    ...(status === "405" ? { Allow: headerRef("Allow") } : {}),
  };
  return Object.keys(headers).length ? headers : undefined;
}

export function toOpenApi(
  ops: Operation[],
  opts: { version: string; includeInternal?: boolean; serverUrl?: string; maxJsonBytes?: number },
) {
  const maxJson = opts.maxJsonBytes ? `${opts.maxJsonBytes} bytes` : "1 MB by default";
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of ops) {
    if (op.internal && !opts.includeInternal) continue;
    // The website's own calls and the tool server's own tools are no part of the public API.
    if (!servedOn(op, "api")) continue;
    const parameters = [
      ...Object.entries(op.params ?? {}).map(([name, schema]) => ({ name, in: "path", required: true, schema })),
      ...Object.entries((op.query as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}).map(
        ([name, schema]) => ({
          name,
          in: "query",
          required: false,
          schema,
        }),
      ),
      ...(op.idempotent ? [{ $ref: "#/components/parameters/IdempotencyKey" }] : []),
    ];
    const keyed = op.scope !== null || op.auth === "key";
    const limited = op.rateLimited ?? keyed; // the same rule the app counts by
    const common = commonResponses(op, keyed, limited, maxJson);
    const all: Record<string, { description: string; schema?: unknown }> = {
      ...Object.fromEntries(Object.entries(common).map(([k, d]) => [k, { description: d }])),
      ...op.responses,
    };
    // An operation's own 413 (the free API's too_long, too_big) keeps the body limit's too.
    if (op.body && op.responses[413])
      all["413"] = { ...op.responses[413], description: `${op.responses[413].description}; or ${common[413]}` };
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(all)) {
      const schema = /^[45]/.test(status) ? (r.schema ?? { $ref: "#/components/schemas/Error" }) : r.schema;
      const headers = responseHeaders(status, limited);
      responses[status] = {
        description: r.description,
        ...(headers ? { headers } : {}),
        ...(schema ? { content: { "application/json": { schema } } } : {}),
      };
    }
    (paths[op.path] ??= {})[op.method.toLowerCase()] = {
      operationId: op.id,
      summary: op.summary,
      tags: op.tags,
      security: op.scope ? [{ bearer: [op.scope] }] : op.auth === "key" ? [{ bearer: [] }] : [],
      ...(op.scope ? { "x-scope": op.scope } : {}),
      ...(op.extension ? { "x-extension": op.extension } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(op.body
        ? { requestBody: { required: op.bodyRequired ?? true, content: { "application/json": { schema: op.body } } } }
        : {}),
      // A raw file body is optional in the document: the same operation may take a link instead.
      ...(op.rawBody
        ? {
            requestBody: {
              required: false,
              description: op.rawBody.description,
              content: Object.fromEntries(
                op.rawBody.mediaTypes.map((t) => [t, { schema: { type: "string", contentMediaType: t } }]),
              ),
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "clipd API",
      version: "1.0.0",
      description:
        `clipd ${opts.version}: clips and transcripts from long recordings. Errors ` +
        `use the envelope { error: { code, message, ...context } }. Request bodies ` +
        `are JSON (Content-Type: application/json), at most ${maxJson}.`,
      license: { name: "Proprietary", identifier: "LicenseRef-clipd-proprietary" },
    },
    servers: [{ url: opts.serverUrl || "/", description: "this clipd server" }],
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      parameters: { IdempotencyKey: IDEMPOTENCY_KEY },
      headers: HEADERS,
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
  };
}
