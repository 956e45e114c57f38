/**
 * The MCP tools, generated from the operation registry: nothing about a tool is written twice.
 * Which operations become tools is one rule (isToolOperation); a tool's name, input and output
 * schemas, annotations and description all come from its Operation, plus the one sentence per
 * tool in ./next-steps.ts saying what a caller does next.
 */
import type { JsonSchema } from "../../daemon/engine/stage.js";
import { authKind } from "../core/run-operation.js";
import { servedOn, type Operation } from "../registry.js";
import { READ_EFFECTS, WRITE_EFFECTS } from "./annotations.js";
import { NEXT_STEP } from "./next-steps.js";

/** The argument that carries an Idempotency-Key (what the HTTP API takes as a header). */
export const IDEMPOTENCY_ARG = "idempotency_key";

/**
 * The rule: a tool is an account-API operation, one an account key authenticates (auth "key") and
 * that the public OpenAPI document lists. The ops routes (ops token), the free API (its own keys)
 * and the signed upload and download links (no key; HTTP bytes a model cannot stream) are not tools.
 */
export function isToolOperation(op: Operation): boolean {
  return authKind(op) === "key" && !op.internal && servedOn(op, "chat");
}

/**
 * A path parameter's name as a tool argument. A bare `id` is named after what it identifies, the
 * path segment before it (/episodes/{id}/clips → episode_id, /brand-kits/{id} → brand_kit_id):
 * a model holding several ids passes the right one by name.
 */
export function argName(op: Operation, param: string): string {
  if (param !== "id") return param;
  const before = /\/([a-z-]+)\/\{id\}/.exec(op.path)?.[1];
  return before ? `${before.replace(/-/g, "_").replace(/s$/, "")}_id` : param;
}

/** createEpisode → create_episode. */
export function toolName(op: Operation): string {
  return op.id.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: {
    type: "object";
    properties: Record<string, JsonSchema>;
    required?: string[];
    additionalProperties?: boolean;
  };
  outputSchema?: { type: "object"; [k: string]: unknown };
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
}

const props = (s: JsonSchema | undefined) => (s?.properties ?? {}) as Record<string, JsonSchema>;
const required = (s: JsonSchema | undefined) => (s?.required ?? []) as string[];

/** A query value arrives from HTTP as a string; a model sends numbers, so numeric strings also take numbers. */
function widenQueryProp(s: JsonSchema): JsonSchema {
  return s.type === "string" && typeof s.pattern === "string" && s.pattern.startsWith("^\\d")
    ? { ...s, type: ["string", "number"] }
    : s;
}

/** Path parameters, query and body merged into one object schema, plus idempotency_key where it is honoured. */
export function inputSchemaOf(op: Operation): ToolDefinition["inputSchema"] {
  const properties: Record<string, JsonSchema> = {};
  const need: string[] = [];
  const add = (name: string, schema: JsonSchema, where: string) => {
    if (name in properties)
      throw new Error(`${op.id}: the ${where} field "${name}" clashes with another argument of the tool`);
    properties[name] = schema;
  };
  for (const [param, schema] of Object.entries(op.params ?? {})) {
    const name = argName(op, param);
    add(
      name,
      {
        ...schema,
        description: (schema.description as string | undefined) ?? `The ${name} from the answer that made it`,
      },
      "path",
    );
    need.push(name);
  }
  for (const [name, schema] of Object.entries(props(op.query))) add(name, widenQueryProp(schema), "query");
  need.push(...required(op.query));
  for (const [name, schema] of Object.entries(props(op.body))) add(name, schema, "body");
  need.push(...required(op.body));
  if (op.idempotent)
    add(
      IDEMPOTENCY_ARG,
      {
        type: "string",
        minLength: 1,
        maxLength: 255,
        description:
          "Repeat a call with the same key (and the same arguments) within 24 hours " +
          "to get the first answer back instead of starting the work again",
      },
      "idempotency",
    );
  // Only a body that allows no extra fields makes the tool strict: the HTTP API is no stricter.
  const strict = op.body ? op.body.additionalProperties === false : true;
  return {
    type: "object",
    properties,
    ...(need.length ? { required: need } : {}),
    ...(strict ? { additionalProperties: false } : {}),
  };
}

/** The success answer's schema (several 2xx statuses with different schemas: any of them). */
export function outputSchemaOf(op: Operation): ToolDefinition["outputSchema"] {
  const schemas = [
    ...new Set(
      Object.entries(op.responses)
        .filter(([s, r]) => Number(s) < 300 && r.schema)
        .map(([, r]) => r.schema!),
    ),
  ];
  if (!schemas.length) return undefined;
  if (schemas.length === 1 && schemas[0]!.type === "object") return schemas[0] as ToolDefinition["outputSchema"];
  return { type: "object", anyOf: schemas };
}

function scopeLine(op: Operation): string {
  return op.scope ? `Needs a key with the "${op.scope}" scope.` : "Any key of the account may call it.";
}

export function toolDefinition(op: Operation): ToolDefinition {
  const name = toolName(op);
  // The name in words ("Create episode"): the summaries run on past what fits in a title.
  const title = name[0]!.toUpperCase() + name.slice(1).replace(/_/g, " ");
  const next = NEXT_STEP[name];
  // No HTTP route: a model calls tools (the route is in docs/mcp.md's table for people).
  const description = [`${op.summary}.`, scopeLine(op), next ? `Next: ${next}` : ""].filter(Boolean).join(" ");
  const outputSchema = outputSchemaOf(op);
  const effects = op.method === "GET" ? READ_EFFECTS : WRITE_EFFECTS[name];
  if (!effects) throw new Error(`${name}: say what the tool does in facade/mcp/annotations.ts`);
  return {
    name,
    title,
    description,
    inputSchema: inputSchemaOf(op),
    ...(outputSchema ? { outputSchema } : {}),
    annotations: {
      title,
      readOnlyHint: op.method === "GET",
      destructiveHint: effects.destructive,
      idempotentHint: effects.idempotent,
      openWorldHint: effects.openWorld,
    },
  };
}

/** A tool's arguments split back into what the operation takes from a request: path, query, body. */
export function splitArguments(op: Operation, args: Record<string, unknown>) {
  const params: Record<string, string> = {};
  const query: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  const queryNames = new Set(Object.keys(props(op.query)));
  let idempotencyKey: unknown;
  let missing: string | undefined;
  let unknown: string | undefined;
  const named = new Set<string>();
  for (const param of Object.keys(op.params ?? {})) {
    const name = argName(op, param);
    named.add(name);
    if (args[name] === undefined) missing ??= name;
    else params[param] = String(args[name]);
  }
  for (const [name, value] of Object.entries(args)) {
    if (named.has(name)) continue;
    if (name === IDEMPOTENCY_ARG && op.idempotent) idempotencyKey = value;
    // Query values reach operations as strings, as they do from a URL.
    else if (queryNames.has(name)) query[name] = typeof value === "string" ? value : JSON.stringify(value);
    else if (op.body) body[name] = value;
    else unknown ??= name;
  }
  return { params, query, body, idempotencyKey, missing, unknown };
}
