/**
 * Bearer-key authentication for the account API. 401 for a missing, unknown, revoked or expired
 * key and for any free-tool key; 403 for a missing scope or an account under billing review.
 * On /mcp (and only there: `audience` is given by facade/oauth/urls.ts's bearerAudience) an OAuth
 * access token is taken too, standing for its grant's account with the scopes allowed.
 */
import type { H3Event } from "h3";
import { keyKind, type Account, type AccountService, type ApiKey } from "../daemon/account/accounts.js";
import { isAccessToken } from "../daemon/oauth/secrets.js";
import type { OAuthService } from "../daemon/oauth/service.js";
import { ApiError } from "./errors.js";

/** Where an OAuth access token may be used: its checker and the resource the call is for (RFC 8707). */
export interface BearerAudience {
  oauth: Pick<OAuthService, "verifyAccess">;
  resource: string;
}

export interface AuthContext {
  key: ApiKey;
  account: Account;
  livemode: boolean;
  /** Set when a signed-in browser session (the web surface) is the caller instead of a key. */
  session?: { id: string };
}

export function bearerToken(event: H3Event): string | undefined {
  const header = event.req.headers.get("authorization") ?? "";
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

export async function requireKey(
  token: string | undefined,
  accounts: AccountService,
  scope: string | null,
  audience?: BearerAudience,
): Promise<AuthContext> {
  if (!token)
    throw new ApiError(401, "unauthorized", "send your API key as Authorization: Bearer svc_live_… or svc_test_…");
  if (isAccessToken(token)) return requireAccessToken(token, accounts, scope, audience);
  const kind = keyKind(token);
  if (kind === "free")
    throw new ApiError(
      401,
      "unauthorized",
      "free transcription keys (svc_free_) work only on /api/v1/transcribe; use an account key here",
    );
  if (!kind) throw new ApiError(401, "unauthorized", "that is not a clipd API key");
  const found = await accounts.authenticate(token);
  if ("reason" in found) {
    const why = {
      unknown: "this API key is not known",
      revoked: "this API key was revoked",
      expired: "this API key has expired",
    }[found.reason];
    throw new ApiError(401, "unauthorized", why, { reason: found.reason });
  }
  if (scope && !(found.key.scopes as readonly string[]).includes(scope)) {
    throw new ApiError(403, "forbidden", `this key lacks the "${scope}" scope`, {
      scope,
      key_scopes: found.key.scopes,
    });
  }
  if (found.account.billing_review && found.key.mode === "live") {
    throw new ApiError(403, "billing_review", "this account is under billing review; contact support");
  }
  return { key: found.key, account: found.account, livemode: found.key.mode === "live" };
}

/**
 * An OAuth access token as an AuthContext: a live pseudo key `oauth:<grant id>` (the rate limit's
 * bucket and GET /me's key id) with the grant's scopes.
 */
async function requireAccessToken(
  token: string,
  accounts: AccountService,
  scope: string | null,
  audience: BearerAudience | undefined,
): Promise<AuthContext> {
  if (!audience)
    throw new ApiError(401, "unauthorized", "an OAuth access token is good only at /mcp; use an API key here", {
      reason: "audience",
    });
  const found = await audience.oauth.verifyAccess(token, audience.resource);
  if ("reason" in found) {
    const why = {
      unknown: "this access token is not known",
      revoked: "this access token was revoked",
      expired: "this access token has expired; refresh it",
      audience: `this access token was issued for another resource than ${audience.resource}`,
    }[found.reason];
    throw new ApiError(401, "unauthorized", why, { reason: found.reason });
  }
  const account = await accounts.getAccount(found.accountId);
  if (!account) throw new ApiError(401, "unauthorized", "the account of this access token no longer exists");
  if (scope && !(found.scopes as readonly string[]).includes(scope))
    throw new ApiError(403, "forbidden", `this access token lacks the "${scope}" scope`, {
      scope,
      key_scopes: found.scopes,
    });
  if (account.billing_review)
    throw new ApiError(403, "billing_review", "this account is under billing review; contact support");
  const key: ApiKey = {
    id: `oauth:${found.grantId}`,
    account_id: account.id,
    name: found.clientName,
    prefix: "oauth",
    mode: "live",
    scopes: found.scopes,
    expires_at: found.expiresAt,
    revoked_at: null,
    created_at: found.createdAt,
    last_used_at: null,
  };
  return { key, account, livemode: true };
}
