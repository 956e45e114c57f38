/**
 * The token endpoint's work and the access-token check. A code becomes a grant with an access
 * token (1 h) and a refresh token (30 days). A refresh token is spent by its one use and replaced
 * (rotation); a second use of a spent one means two parties hold it, so the whole grant is revoked
 * (OAuth 2.1 section 4.3.1). A second use of a code revokes the grant it made, likewise. Each check
 * runs in one transaction holding the row, so two racing uses cannot both pass; a revocation that
 * answers a reuse is committed before the refusal is thrown.
 */
import { randomUUID } from "node:crypto";
import type { Scope } from "../account/accounts.js";
import type { Db, Queryable } from "../store/db.js";
import { OAuthRefusal } from "./errors.js";
import { ACCESS_PREFIX, digest, newSecret, pkceMatches, REFRESH_PREFIX, sameDigest } from "./secrets.js";

export const ACCESS_TTL_SECONDS = 3600;
export const REFRESH_TTL_SECONDS = 30 * 86400;

export interface TokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

const grant = (message: string, field: string) => new OAuthRefusal("invalid_grant", message, field);

/** Revokes a grant and so every token made under it. */
export async function revokeGrantTx(q: Queryable, grantId: string, reason: string): Promise<void> {
  await q.query(
    `update oauth_grants set revoked_at = coalesce(revoked_at, now()), revoked_reason = coalesce(revoked_reason, $2)
      where id = $1`,
    [grantId, reason],
  );
  await q.query(`update oauth_tokens set revoked_at = coalesce(revoked_at, now()) where grant_id = $1`, [grantId]);
}

async function issuePair(q: Queryable, grantId: string, scopes: string[]): Promise<TokenAnswer> {
  const access = newSecret(ACCESS_PREFIX);
  const refresh = newSecret(REFRESH_PREFIX);
  await q.query(
    `insert into oauth_tokens (token_hash, grant_id, kind, expires_at)
     values ($1, $3, 'access', now() + make_interval(secs => $4::int)),
            ($2, $3, 'refresh', now() + make_interval(secs => $5::int))`,
    [digest(access), digest(refresh), grantId, ACCESS_TTL_SECONDS, REFRESH_TTL_SECONDS],
  );
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: ACCESS_TTL_SECONDS,
    refresh_token: refresh,
    scope: scopes.join(" "),
  };
}

/** Runs `fn` in a transaction; a refusal it returns (after its revocations commit) is thrown. */
async function judged<T>(db: Db, fn: (tx: Queryable) => Promise<T | OAuthRefusal>): Promise<T> {
  const out = await db.transaction(fn);
  if (out instanceof OAuthRefusal) throw out;
  return out;
}

export interface CodeExchange {
  clientId: string;
  code: string;
  verifier: string;
  redirectUri: string;
  resource?: string;
}

export function exchangeCode(db: Db, x: CodeExchange): Promise<TokenAnswer> {
  return judged(db, async (tx) => {
    const h = digest(x.code);
    const { rows } = await tx.query(
      `select c.*, c.expires_at <= now() as expired, a.deleted_at
         from oauth_codes c join accounts a on a.id = c.account_id where c.code_hash = $1 for update of c`,
      [h],
    );
    const c = rows[0];
    if (!c || !sameDigest(c.code_hash, h)) return grant("this code is not known", "code");
    if (c.used_at) {
      if (c.grant_id) await revokeGrantTx(tx, c.grant_id, "code_reuse");
      return grant("this code was already used; the tokens it gave are revoked", "code");
    }
    if (c.client_id !== x.clientId) return grant("this code was issued to another client", "client_id");
    if (c.expired) return grant("this code has expired; codes live 60 seconds", "code");
    if (c.redirect_uri !== x.redirectUri)
      return grant("redirect_uri is not the one the code was issued for", "redirect_uri");
    if (!pkceMatches(x.verifier, c.code_challenge))
      return grant("code_verifier does not match the code_challenge (S256)", "code_verifier");
    if (x.resource !== undefined && x.resource !== c.resource)
      return new OAuthRefusal("invalid_target", `resource must be ${c.resource}, as in the authorization`, "resource");
    if (c.deleted_at) return grant("the account that allowed this was deleted", "code");
    const grantId = randomUUID();
    await tx.query(
      `insert into oauth_grants (id, account_id, client_id, scopes, resource) values ($1, $2, $3, $4, $5)`,
      [grantId, c.account_id, c.client_id, c.scopes, c.resource],
    );
    await tx.query(`update oauth_codes set used_at = now(), grant_id = $2 where code_hash = $1`, [h, grantId]);
    return issuePair(tx, grantId, c.scopes);
  });
}

export interface RefreshExchange {
  clientId: string;
  refreshToken: string;
  resource?: string;
  scope?: string;
}

export function refreshTokens(db: Db, x: RefreshExchange): Promise<TokenAnswer> {
  return judged(db, async (tx) => {
    const h = digest(x.refreshToken);
    const { rows } = await tx.query(
      `select t.*, t.expires_at <= now() as expired, g.client_id, g.scopes, g.resource,
              g.revoked_at as grant_revoked_at, a.deleted_at
         from oauth_tokens t join oauth_grants g on g.id = t.grant_id join accounts a on a.id = g.account_id
        where t.token_hash = $1 and t.kind = 'refresh' for update of t`,
      [h],
    );
    const t = rows[0];
    if (!t || !sameDigest(t.token_hash, h)) return grant("this refresh token is not known", "refresh_token");
    if (t.client_id !== x.clientId) return grant("this refresh token was issued to another client", "client_id");
    if (t.revoked_at || t.grant_revoked_at || t.deleted_at)
      return grant("this refresh token was revoked; authorize again", "refresh_token");
    if (t.used_at) {
      await revokeGrantTx(tx, t.grant_id, "refresh_reuse");
      return grant("this refresh token was already used, so the grant is revoked; authorize again", "refresh_token");
    }
    if (t.expired) return grant("this refresh token has expired; authorize again", "refresh_token");
    if (x.resource !== undefined && x.resource !== t.resource)
      return new OAuthRefusal("invalid_target", `resource must be ${t.resource}, as in the authorization`, "resource");
    const asked = (x.scope ?? "").split(" ").filter(Boolean);
    const beyond = asked.filter((s) => !(t.scopes as string[]).includes(s));
    if (beyond.length)
      return new OAuthRefusal("invalid_scope", `the grant does not include ${beyond.join(", ")}`, "scope");
    await tx.query(`update oauth_tokens set used_at = now() where token_hash = $1`, [h]);
    return issuePair(tx, t.grant_id, t.scopes);
  });
}

export interface AccessGrant {
  grantId: string;
  accountId: string;
  clientName: string;
  scopes: Scope[];
  expiresAt: string;
  createdAt: string;
}

/**
 * The grant an access token stands for, when it is live and for `resource` (RFC 8707: a token is
 * good only at the audience it was made for); else why not.
 */
export async function verifyAccess(
  q: Queryable,
  token: string,
  resource: string,
): Promise<AccessGrant | { reason: "unknown" | "revoked" | "expired" | "audience" }> {
  const h = digest(token);
  const { rows } = await q.query(
    `select t.token_hash, t.revoked_at, t.expires_at, t.expires_at <= now() as expired, t.created_at,
            g.id as grant_id, g.account_id, g.scopes, g.resource, g.revoked_at as grant_revoked_at,
            c.name as client_name, a.deleted_at
       from oauth_tokens t join oauth_grants g on g.id = t.grant_id
       join oauth_clients c on c.id = g.client_id join accounts a on a.id = g.account_id
      where t.token_hash = $1 and t.kind = 'access'`,
    [h],
  );
  const t = rows[0];
  if (!t || !sameDigest(t.token_hash, h)) return { reason: "unknown" };
  if (t.revoked_at || t.grant_revoked_at || t.deleted_at) return { reason: "revoked" };
  if (t.expired) return { reason: "expired" };
  if (t.resource !== resource) return { reason: "audience" };
  // Last use kept to the minute, so a busy connector costs one write a minute, not one a call.
  await q
    .query(
      `update oauth_grants set last_used_at = now()
        where id = $1 and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
      [t.grant_id],
    )
    .catch(() => {});
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));
  return {
    grantId: t.grant_id,
    accountId: t.account_id,
    clientName: t.client_name,
    scopes: t.scopes,
    expiresAt: iso(t.expires_at),
    createdAt: iso(t.created_at),
  };
}

/**
 * RFC 7009: a refresh token's revocation ends its grant; an access token's ends that token. A
 * token that is unknown, or another client's, is answered the same (nothing to revoke).
 */
export async function revokeToken(db: Db, token: string, clientId: string): Promise<void> {
  const h = digest(token);
  await db.transaction(async (tx) => {
    const { rows } = await tx.query(
      `select t.token_hash, t.kind, t.grant_id, g.client_id
         from oauth_tokens t join oauth_grants g on g.id = t.grant_id where t.token_hash = $1`,
      [h],
    );
    const t = rows[0];
    if (!t || !sameDigest(t.token_hash, h) || t.client_id !== clientId) return;
    if (t.kind === "refresh") await revokeGrantTx(tx, t.grant_id, "client");
    else await tx.query(`update oauth_tokens set revoked_at = coalesce(revoked_at, now()) where token_hash = $1`, [h]);
  });
}
