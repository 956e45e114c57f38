/**
 * OAuth 2.1 for the MCP tool server, the browser side. GET /oauth/authorize judges the request
 * (daemon/oauth/codes.ts): a bad client or redirect URI is shown, never followed; any other fault
 * goes back to the client; a good request goes on to the website's consent page
 * (web/src/pages/oauth-consent.tsx), through sign-in first when the browser has no session, the
 * whole request kept in the page's address. The page reads what is asked (client name, redirect
 * host, scopes) and posts Allow or Deny, both with the session and its CSRF token; the answer
 * says where the browser goes next. The Keys page lists and revokes the grants.
 */
import { Type } from "@sinclair/typebox";
import type { Scope } from "../../daemon/account/accounts.js";
import type { AuthorizeCheck } from "../../daemon/oauth/service.js";
import { redirectWith } from "../../daemon/oauth/codes.js";
import type { OAuthRefusal } from "../../daemon/oauth/errors.js";
import { ApiError } from "../errors.js";
import { mcpResource, oauthBase } from "../oauth/urls.js";
import { defineOperation, enumOf, uuidParam, type Operation, type OperationContext } from "../registry.js";
import { readCookies, SESSION_COOKIE } from "../web/cookies.js";
import { sessionOf } from "./web-account.js";

export const CONSENT_PAGE = "/oauth/consent";

const web = { surfaces: ["web" as const], tags: ["web"], scope: null, auth: "session" as const };

/**
 * What each scope lets the app do, as the consent page says it: exactly what that scope's tools
 * reach (transcripts are read with the transcripts scope, not clips.read; test/unit/consent-words).
 */
export const SCOPE_WORDS: Record<Scope, string> = {
  "clips.read": "see your episodes, their clips and captions, and your brand kits",
  "clips.write": "start episodes and make clips, which spends your credit",
  transcripts: "start transcripts and read them; starting one spends your credit",
  webhooks: "manage your webhooks",
};

/** Only the string parameters, each once (a repeated one is dropped, so it cannot be smuggled). */
function paramsOf(raw: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (typeof v === "string") out[k] = v;
  return out;
}

async function judge(ctx: OperationContext, params: Record<string, unknown>): Promise<AuthorizeCheck> {
  const base = oauthBase(ctx.services.config, ctx.caller.linkOrigin);
  if (!base) throw new ApiError(500, "internal", "the server's address is not known; set server.public_url");
  return ctx.services.oauth.checkAuthorize(params, mcpResource(base));
}

const shown = (c: { show: OAuthRefusal }) =>
  new ApiError(c.show.status, c.show.code, c.show.message, c.show.field ? { field: c.show.field } : {});

const backTo = (c: { back: { code: string; message: string }; redirectUri: string; state?: string }) =>
  redirectWith(c.redirectUri, { error: c.back.code, error_description: c.back.message, state: c.state });

const found = (location: string) =>
  new Response(null, { status: 302, headers: { location, "cache-control": "no-store" } });

const authorize = defineOperation({
  id: "oauthAuthorize",
  method: "GET",
  path: "/oauth/authorize",
  surfaces: ["api"],
  tags: ["oauth"],
  scope: null,
  auth: "public",
  internal: true,
  summary: "OAuth authorization endpoint: on to sign-in and the consent page, or back to the client",
  responses: { 302: { description: "On to the consent page, or back to the client with an error" } },
  async handler(ctx) {
    const req = ctx.caller.request!;
    const check = await judge(ctx, paramsOf(ctx.query));
    if ("show" in check) throw shown(check);
    if ("back" in check) return found(backTo(check));
    const consent = CONSENT_PAGE + new URL(req.url).search;
    const session = await ctx.services.web.sessions.find(readCookies(req.headers.get("cookie")).get(SESSION_COOKIE));
    return found(session ? consent : `/signin?next=${encodeURIComponent(consent)}`);
  },
});

const consentDetails = defineOperation({
  id: "oauthConsentDetails",
  method: "GET",
  path: "/api/v1/oauth/consent",
  ...web,
  summary: "What an authorization request asks: the client's name, its redirect host, the scopes",
  responses: { 200: { description: "The request" }, 400: { description: "A request that cannot go on" } },
  async handler(ctx) {
    const check = await judge(ctx, paramsOf(ctx.query));
    if ("show" in check) throw shown(check);
    if ("back" in check)
      throw new ApiError(400, check.back.code, check.back.message, {
        field: check.back.field,
        redirect_to: backTo(check),
      });
    const r = check.ok;
    return {
      client_id: r.client.client_id,
      client_name: r.client.client_name,
      redirect_uri: r.redirectUri,
      redirect_host: new URL(r.redirectUri).host,
      scopes: r.scopes.map((s) => ({ scope: s, means: SCOPE_WORDS[s] })),
      resource: r.resource,
    };
  },
});

const consentDecision = defineOperation({
  id: "oauthConsentDecision",
  method: "POST",
  path: "/api/v1/oauth/consent",
  ...web,
  summary: "Allow (a one-time code) or deny an authorization request; the answer says where to go",
  body: Type.Object(
    {
      // Unsafe: a map of strings as `additionalProperties` (TypeBox's record would add patternProperties).
      params: Type.Unsafe<Record<string, string>>({
        type: "object",
        maxProperties: 20,
        additionalProperties: { type: "string", maxLength: 2000 },
      }),
      decision: enumOf(["allow", "deny"]),
    },
    { additionalProperties: false },
  ),
  responses: { 200: { description: "{redirect_to}" }, 400: { description: "A request that cannot go on" } },
  async handler(ctx) {
    const check = await judge(ctx, ctx.body.params);
    if ("show" in check) throw shown(check);
    if ("back" in check) return { redirect_to: backTo(check) };
    const r = check.ok;
    if (ctx.body.decision === "deny")
      return {
        redirect_to: redirectWith(r.redirectUri, {
          error: "access_denied",
          error_description: "the user did not allow the request",
          state: r.state,
        }),
      };
    const code = await ctx.services.oauth.issueCode(sessionOf(ctx).accountId, r);
    return { redirect_to: redirectWith(r.redirectUri, { code, state: r.state }) };
  },
});

const listGrants = defineOperation({
  id: "listOAuthGrants",
  method: "GET",
  path: "/api/v1/oauth/grants",
  ...web,
  summary: "The apps connected by OAuth: client, redirect host, scopes, last use and live tokens",
  responses: { 200: { description: "Grants, newest first" } },
  async handler(ctx) {
    return { grants: await ctx.services.oauth.grants(sessionOf(ctx).accountId) };
  },
});

const revokeGrant = defineOperation({
  id: "revokeOAuthGrant",
  method: "DELETE",
  path: "/api/v1/oauth/grants/{id}",
  ...web,
  params: { id: uuidParam },
  summary: "Disconnect an app: its grant and every token under it end at once",
  responses: { 200: { description: "Revoked" }, 404: { description: "No such grant on this account" } },
  async handler(ctx) {
    await ctx.services.oauth.revokeGrant(sessionOf(ctx).accountId, ctx.params.id);
    return { id: ctx.params.id, status: "revoked" };
  },
});

export const OAUTH_BROWSER_OPERATIONS: Operation[] = [authorize];
export const WEB_OAUTH_OPERATIONS: Operation[] = [consentDetails, consentDecision, listGrants, revokeGrant];
