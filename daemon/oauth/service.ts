/**
 * OAuth 2.1 for the MCP tool server (issue 30): clipd is both the authorization server and the
 * protected resource (/mcp). Built on the website's accounts: a signed-in user allows a client on
 * the consent page, and the tokens act for that account with the scopes allowed, the same four as
 * API keys. Everything is in PostgreSQL (migration 026), so any facade process answers any step.
 * The HTTP side (metadata, endpoints, consent calls) is facade/operations/oauth*.ts.
 */
import type { Db } from "../store/db.js";
import { findClient, registerClient, type OAuthClient } from "./clients.js";
import { checkAuthorize, issueCode, type AuthorizeCheck, type AuthorizeRequest } from "./codes.js";
import { listGrants, revokeGrantOf, type GrantView } from "./grants.js";
import {
  exchangeCode,
  refreshTokens,
  revokeToken,
  verifyAccess,
  type AccessGrant,
  type CodeExchange,
  type RefreshExchange,
  type TokenAnswer,
} from "./tokens.js";

export class OAuthService {
  constructor(private readonly deps: { db: Db }) {}

  register(body: unknown, addr: string): Promise<OAuthClient> {
    return registerClient(this.deps.db, body, addr);
  }

  client(id: string): Promise<OAuthClient | undefined> {
    return findClient(this.deps.db, id);
  }

  checkAuthorize(params: Record<string, unknown>, resource: string): Promise<AuthorizeCheck> {
    return checkAuthorize(this.deps.db, params, resource);
  }

  issueCode(accountId: string, req: AuthorizeRequest): Promise<string> {
    return issueCode(this.deps.db, accountId, req);
  }

  exchangeCode(x: CodeExchange): Promise<TokenAnswer> {
    return exchangeCode(this.deps.db, x);
  }

  refresh(x: RefreshExchange): Promise<TokenAnswer> {
    return refreshTokens(this.deps.db, x);
  }

  verifyAccess(token: string, resource: string): ReturnType<typeof verifyAccess> {
    return verifyAccess(this.deps.db, token, resource);
  }

  revoke(token: string, clientId: string): Promise<void> {
    return revokeToken(this.deps.db, token, clientId);
  }

  grants(accountId: string): Promise<GrantView[]> {
    return listGrants(this.deps.db, accountId);
  }

  revokeGrant(accountId: string, grantId: string): Promise<void> {
    return revokeGrantOf(this.deps.db, accountId, grantId);
  }
}

export type { AccessGrant, AuthorizeCheck, AuthorizeRequest, GrantView, OAuthClient, TokenAnswer };
