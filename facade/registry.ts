/**
 * The operation registry. One entry per API operation holds its id, method, path, scope, schemas
 * and handler; from this list come the h3 routes, request validation, the OpenAPI 3.1 document and
 * (later) the MCP tools, so nothing about an operation is written twice. Handlers know no
 * transport: they read a typed context and set `status`; core/run-operation.ts runs them.
 *
 * Request schemas (path parameters, query, body) are TypeBox: plain JSON Schema at run time, which
 * ajv validates and OpenAPI prints as it is, and at compile time the handler's types, inferred by
 * defineOperation with Static<>, so a handler's idea of its body cannot drift from what is checked.
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import type { Caller, Surface } from "./core/caller.js";
import type { JsonSchema } from "../daemon/engine/stage.js";
import type { Queryable } from "../daemon/store/db.js";
import type { AuthContext } from "./auth.js";
import type { FacadeServices } from "./services.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** The body a handler sees: its schema's type, validated; without a schema there is none. */
export type BodyOf<S extends TSchema | undefined> = S extends TSchema ? Static<S> : undefined;
/** The query a handler sees: its schema's type, validated; without one, the raw values, unchecked. */
export type QueryOf<S extends TSchema | undefined> = S extends TSchema ? Static<S> : Record<string, unknown>;
/** The path parameters, each a string (a schema's enum narrows it: the router checked it). */
export type ParamsOf<P extends Record<string, TSchema>> = { [K in keyof P]: Static<P[K]> & string };

export interface OperationContext<B = unknown, Q = unknown, P = Record<string, string>> {
  /** Who is asking and through which surface (links, client address, presented credentials). */
  caller: Caller;
  /** The answer's status; 200 unless the handler says otherwise (202 accepted, 201 created…). */
  status: number;
  /** The caller's key and account, for operations with a scope. */
  auth?: AuthContext;
  params: P;
  query: Q;
  body: B;
  services: FacadeServices;
  /**
   * Records the answer in `tx`, the transaction of the work it reports, when the request carries
   * an Idempotency-Key (a no-op otherwise): the work and its replayable answer then commit
   * together, so a crash can never leave work done with its key still "running". Operations that
   * start work call it from their service's `within` hook.
   */
  settle(tx: Queryable, status: number, body: unknown): Promise<void>;
}

export interface Operation<
  BS extends TSchema | undefined = TSchema | undefined,
  QS extends TSchema | undefined = TSchema | undefined,
  PS extends Record<string, TSchema> = Record<string, TSchema>,
> {
  id: string;
  method: HttpMethod;
  /** OpenAPI-style path, e.g. /api/v1/runs/{id}. */
  path: string;
  summary: string;
  /** Scope a key needs; null for public operations (unless `auth` says otherwise). */
  scope: string | null;
  /**
   * How callers authenticate. "key": an account key (with `scope` when one is set; GET /me needs
   * none), or under /web the signed-in session; "ops": the ops token (always; see ops-auth.ts);
   * "free-optional": a free-API key may be presented (the handler judges it); "session": a signed-in
   * browser session only; "public": nothing. Default: "key" with a scope, else "public".
   */
  auth?: "key" | "ops" | "free-optional" | "public" | "session";
  /**
   * The surfaces serving the operation; default every one. `["web"]` marks a web-only operation
   * (sign-in, keys, billing, the account): served only under /web, left out of the OpenAPI document
   * and the MCP tools. Auth "session" needs a signed-in browser session (facade/web/). `["chat"]`
   * marks a tool of the MCP tool server only (wait_for_job: a bounded wait a model cannot do by
   * itself), never routed over HTTP.
   */
  surfaces?: Surface[];
  tags?: string[];
  /** Path parameters by name (TypeBox string schemas); a value that fails its schema is a 404. */
  params?: PS;
  /** The query's object schema (TypeBox); its properties are the query fields. */
  query?: QS;
  /** The JSON body's schema (TypeBox); the handler's `body` is its type. */
  body?: BS;
  /**
   * A file taken as the raw request body, read by the handler itself (no JSON `body`): described in
   * OpenAPI under these media types. Absent for every JSON operation.
   */
  rawBody?: { description: string; mediaTypes: string[] };
  /**
   * Whether OpenAPI marks the JSON body required (default true). Only an explicit `true` refuses a
   * request without a body (400 naming `body`); otherwise a missing body counts as {}, as it always
   * has for the operations whose published description says nothing of it.
   */
  bodyRequired?: boolean;
  responses: Record<number, { description: string; schema?: JsonSchema }>;
  /**
   * Where the operation goes beyond the published API description (the contract clients code to):
   * said in OpenAPI as `x-extension`, so a client coding to the contract knows what it may not
   * find on another implementation.
   */
  extension?: string;
  /** Excluded from the public OpenAPI document (ops-only routes). */
  internal?: boolean;
  /** Honours Idempotency-Key (POST and PATCH of the account API). */
  idempotent?: boolean;
  /** Counts against the caller's rate limit (default: operations with a scope). */
  rateLimited?: boolean;
  handler(ctx: OperationContext<BodyOf<BS>, QueryOf<QS>, ParamsOf<PS>>): Promise<unknown> | unknown;
}

/**
 * An operation, its handler's body, query and params types inferred from its schemas (none given:
 * no body, the raw query, no params).
 */
export function defineOperation<
  BS extends TSchema | undefined = undefined,
  QS extends TSchema | undefined = undefined,
  // None given: no path parameters.
  PS extends Record<string, TSchema> = {},
>(op: Operation<BS, QS, PS>): Operation<BS, QS, PS> {
  return op;
}

/** Whether an operation is served on a surface: every one unless `surfaces` names some. */
export function servedOn(op: Operation, surface: Surface): boolean {
  return op.surfaces === undefined || op.surfaces.includes(surface);
}

/** A web-only operation: served only under /web, never in OpenAPI or as an MCP tool. */
export function isWebOnly(op: Operation): boolean {
  return op.surfaces !== undefined && op.surfaces.length === 1 && op.surfaces[0] === "web";
}

export const uuidParam = Type.String({ format: "uuid" });

/** A JSON body that takes no field (`{}`, or no body at all). */
export const emptyBody = Type.Object({}, { additionalProperties: false });

/**
 * A request field that may be any JSON object, as `{ type: "object" }` (TypeBox's own record would add
 * patternProperties), typed as a record of unknown values for the handler to narrow.
 */
export const anyObject = () => Type.Unsafe<Record<string, unknown>>({ type: "object" });

/**
 * `{ enum }` with no `type`, as the schemas say it (TypeBox's union of literals would be an anyOf),
 * typed as its values.
 */
export const enumOf = <const T extends readonly (string | number)[]>(
  values: T,
  options: Record<string, unknown> = {},
) => Type.Unsafe<T[number]>({ enum: [...values], ...options });

/**
 * A service `within` hook for an operation that starts work: it builds the answer from the work's
 * result inside the work's transaction and settles it there (OperationContext.settle); `answer`
 * holds it once the service returns. `status` may depend on the result.
 */
export function settleAnswer<R, A>(
  ctx: OperationContext,
  status: number | ((r: R) => number),
  view: (r: R, tx: Queryable) => A | Promise<A>,
) {
  const hook = {
    answer: undefined as A | undefined,
    async within(tx: Queryable, r: R): Promise<void> {
      const code = typeof status === "number" ? status : status(r);
      ctx.status = code;
      hook.answer = await view(r, tx);
      await ctx.settle(tx, code, hook.answer);
    },
  };
  return hook;
}
