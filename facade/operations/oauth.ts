/**
 * OAuth 2.1 for the MCP tool server, the machine side (daemon/oauth/ does the work): the resource
 * metadata (RFC 9728), the authorization server metadata (RFC 8414), client registration (RFC
 * 7591), the token endpoint and revocation (RFC 7009). These answer in OAuth's own shapes, which
 * client libraries parse (`{error, error_description}`, plus `field`), with Cache-Control: no-store
 * on anything that carries a token. The browser side (authorize, consent, the Keys page's list) is
 * in oauth-consent.ts. Served on the API surface only and kept out of the OpenAPI document: the
 * metadata documents are these endpoints' description.
 */
import { SCOPES } from "../../daemon/account/accounts.js";
import { OAuthRefusal } from "../../daemon/oauth/errors.js";
import { lingerOver, mediaType, nextChunk, requestHasBody } from "../_body.js";
import { ApiError } from "../errors.js";
import {
  AUTHORIZATION_SERVER_PATH,
  mcpResource,
  oauthBase,
  PROTECTED_RESOURCE_PATH,
  MCP_RESOURCE_PATH,
} from "../oauth/urls.js";
import { defineOperation, type Operation, type OperationContext } from "../registry.js";
import { OAUTH_BROWSER_OPERATIONS } from "./oauth-consent.js";

/** A form or JSON body of a token, revocation or registration call is small. */
const MAX_BODY_BYTES = 16 * 1024;

const oauthOp = { surfaces: ["api" as const], tags: ["oauth"], scope: null, auth: "public" as const, internal: true };

function json(status: number, body: unknown, extra: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...extra },
  });
}

/** Requests whose body was read to its end; any other refusal of a request with a body left bytes unread. */
const readWhole = new WeakSet<Request>();

/**
 * An OAuth refusal in the RFC's shape; anything else is left to the usual envelope. Refused with
 * bytes still unread (too large, wrong type), the answer closes the connection after a short
 * linger, as every other early refusal does (facade/_body.ts lingerOver): cancelling the body
 * instead destroyed the socket under the answer still being written (issue 36).
 */
function refusal(err: unknown, req: Request | undefined): Response {
  if (!(err instanceof OAuthRefusal)) throw err;
  const extra: Record<string, string> = err.retryAfter ? { "retry-after": String(err.retryAfter) } : {};
  if (req && requestHasBody(req) && !readWhole.has(req)) {
    extra.connection = "close";
    lingerOver(req);
  }
  return json(err.status, err.body(), extra);
}

function baseOf(ctx: OperationContext): string {
  const base = oauthBase(ctx.services.config, ctx.caller.linkOrigin);
  if (!base) throw new ApiError(500, "internal", "the server's address is not known; set server.public_url");
  return base;
}

/** The request body as text, refused over MAX_BODY_BYTES before it is all read. */
async function readSmall(req: Request | undefined): Promise<string> {
  if (!req?.body || !requestHasBody(req)) return "";
  const declared = Number(req.headers.get("content-length") ?? 0);
  const tooLarge = () => new OAuthRefusal("invalid_request", `the body is larger than ${MAX_BODY_BYTES} bytes`, "body");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  try {
    for (;;) {
      const { done, value } = await nextChunk(reader, n, "body_interrupted", "the request body");
      if (done) break;
      n += value.byteLength;
      // Released, not cancelled: the refusal lingers over the rest (refusal above).
      if (n > MAX_BODY_BYTES) throw tooLarge();
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  readWhole.add(req);
  return Buffer.concat(chunks).toString("utf8");
}

/** A token or revocation request's parameters: a form (RFC 6749 section 4.1.3), each named once. */
async function readForm(req: Request | undefined): Promise<Record<string, string>> {
  const type = req ? mediaType(req) : "";
  if (type !== "application/x-www-form-urlencoded")
    throw new OAuthRefusal("invalid_request", "send the parameters as application/x-www-form-urlencoded", "body");
  const form = new URLSearchParams(await readSmall(req));
  const out: Record<string, string> = {};
  for (const [k, v] of form) {
    if (k in out) throw new OAuthRefusal("invalid_request", `${k} is given more than once`, k);
    out[k] = v;
  }
  return out;
}

const need = (form: Record<string, string>, name: string): string => {
  const v = form[name];
  if (!v) throw new OAuthRefusal("invalid_request", `${name} is required`, name);
  return v;
};

function protectedResource(ctx: OperationContext) {
  const base = baseOf(ctx);
  return {
    resource: mcpResource(base),
    authorization_servers: [base],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "clipd MCP tool server",
    resource_documentation: `${base}/openapi.json`,
  };
}

const resourceMetadata = (id: string, path: string) =>
  defineOperation({
    id,
    method: "GET",
    path,
    ...oauthOp,
    summary: "OAuth protected resource metadata of /mcp (RFC 9728)",
    responses: { 200: { description: "The metadata" } },
    handler: protectedResource,
  });

const authorizationServer = defineOperation({
  id: "oauthAuthorizationServer",
  method: "GET",
  path: AUTHORIZATION_SERVER_PATH,
  ...oauthOp,
  summary: "OAuth authorization server metadata (RFC 8414)",
  responses: { 200: { description: "The metadata" } },
  handler(ctx) {
    const base = baseOf(ctx);
    return {
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      scopes_supported: [...SCOPES],
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      revocation_endpoint_auth_methods_supported: ["none"],
      service_documentation: `${base}/openapi.json`,
    };
  },
});

const register = defineOperation({
  id: "oauthRegister",
  method: "POST",
  path: "/oauth/register",
  ...oauthOp,
  rateLimited: true,
  summary: "Register an OAuth client (RFC 7591): public, PKCE, https or loopback redirect URIs",
  responses: { 201: { description: "The client" }, 400: { description: "invalid_client_metadata" } },
  async handler(ctx) {
    try {
      const req = ctx.caller.request;
      if (req && mediaType(req) !== "application/json")
        throw new OAuthRefusal("invalid_request", "send the client metadata as application/json", "body");
      let body: unknown;
      try {
        body = JSON.parse(await readSmall(req));
      } catch (err) {
        if (err instanceof OAuthRefusal) throw err;
        throw new OAuthRefusal("invalid_request", "the body is not JSON", "body");
      }
      const c = await ctx.services.oauth.register(body, ctx.caller.clientAddr);
      return json(201, {
        ...c,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        scope: SCOPES.join(" "),
      });
    } catch (err) {
      return refusal(err, ctx.caller.request);
    }
  },
});

const token = defineOperation({
  id: "oauthToken",
  method: "POST",
  path: "/oauth/token",
  ...oauthOp,
  rateLimited: true,
  summary: "Exchange a code (with its PKCE verifier) or a refresh token for tokens",
  responses: { 200: { description: "Tokens" }, 400: { description: "invalid_grant and the like" } },
  async handler(ctx) {
    try {
      const form = await readForm(ctx.caller.request);
      const clientId = need(form, "client_id");
      if (!(await ctx.services.oauth.client(clientId)))
        throw new OAuthRefusal("invalid_client", `no client ${clientId} is registered here`, "client_id");
      const grantType = need(form, "grant_type");
      const resource = form.resource;
      if (grantType === "authorization_code") {
        const answer = await ctx.services.oauth.exchangeCode({
          clientId,
          code: need(form, "code"),
          verifier: need(form, "code_verifier"),
          redirectUri: need(form, "redirect_uri"),
          resource,
        });
        return json(200, answer);
      }
      if (grantType === "refresh_token") {
        const answer = await ctx.services.oauth.refresh({
          clientId,
          refreshToken: need(form, "refresh_token"),
          resource,
          scope: form.scope,
        });
        return json(200, answer);
      }
      throw new OAuthRefusal(
        "unsupported_grant_type",
        "grant_type must be authorization_code or refresh_token",
        "grant_type",
      );
    } catch (err) {
      return refusal(err, ctx.caller.request);
    }
  },
});

const revoke = defineOperation({
  id: "oauthRevoke",
  method: "POST",
  path: "/oauth/revoke",
  ...oauthOp,
  rateLimited: true,
  summary: "Revoke an access token, or a refresh token and its whole grant (RFC 7009)",
  responses: { 200: { description: "Revoked, or nothing to revoke" } },
  async handler(ctx) {
    try {
      const form = await readForm(ctx.caller.request);
      const clientId = need(form, "client_id");
      if (!(await ctx.services.oauth.client(clientId)))
        throw new OAuthRefusal("invalid_client", `no client ${clientId} is registered here`, "client_id");
      await ctx.services.oauth.revoke(need(form, "token"), clientId);
      return json(200, {});
    } catch (err) {
      return refusal(err, ctx.caller.request);
    }
  },
});

export const OAUTH_OPERATIONS: Operation[] = [
  resourceMetadata("oauthProtectedResource", PROTECTED_RESOURCE_PATH),
  resourceMetadata("oauthProtectedResourceMcp", PROTECTED_RESOURCE_PATH + MCP_RESOURCE_PATH),
  authorizationServer,
  ...OAUTH_BROWSER_OPERATIONS,
  register,
  token,
  revoke,
];
