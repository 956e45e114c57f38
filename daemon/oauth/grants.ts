/**
 * An account's connected apps, as the Keys page lists them: each grant (one consent that became
 * tokens) with its client, redirect host, scopes, when it was made and last used, and its live
 * tokens. Revoking one ends every token under it at once (the next /mcp call is a 401).
 */
import { NotFound } from "../domain/errors.js";
import type { Db } from "../store/db.js";
import { revokeGrantTx } from "./tokens.js";

export interface GrantView {
  id: string;
  client_id: string;
  client_name: string;
  redirect_host: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  revoked_reason: string | null;
  /** The live tokens: access tokens (1 h each) and the one refresh token, with when each ends. */
  tokens: Array<{ kind: "access" | "refresh"; created_at: string; expires_at: string }>;
  status: "active" | "revoked";
}

const iso = (v: unknown): string | null => (v == null ? null : v instanceof Date ? v.toISOString() : String(v));

function hostOf(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return uri;
  }
}

/** The account's grants, newest first: the live ones, and those revoked in the last 30 days. */
export async function listGrants(db: Db, accountId: string): Promise<GrantView[]> {
  const { rows } = await db.query(
    `select g.*, c.name as client_name, c.redirect_uris
       from oauth_grants g join oauth_clients c on c.id = g.client_id
      where g.account_id = $1 and (g.revoked_at is null or g.revoked_at > now() - interval '30 days')
      order by g.created_at desc limit 100`,
    [accountId],
  );
  if (!rows.length) return [];
  const live = await db.query(
    `select grant_id, kind, created_at, expires_at from oauth_tokens
      where grant_id = any($1::uuid[]) and revoked_at is null and used_at is null and expires_at > now()
      order by created_at`,
    [rows.map((r) => r.id)],
  );
  return rows.map((r) => ({
    id: r.id,
    client_id: r.client_id,
    client_name: r.client_name,
    redirect_host: hostOf((r.redirect_uris as string[])[0] ?? ""),
    scopes: r.scopes,
    created_at: iso(r.created_at)!,
    last_used_at: iso(r.last_used_at),
    revoked_at: iso(r.revoked_at),
    revoked_reason: r.revoked_reason ?? null,
    tokens: r.revoked_at
      ? []
      : live.rows
          .filter((t) => t.grant_id === r.id)
          .map((t) => ({ kind: t.kind, created_at: iso(t.created_at)!, expires_at: iso(t.expires_at)! })),
    status: r.revoked_at ? "revoked" : "active",
  }));
}

/** Revokes a grant of this account; another account's is as unknown as a missing one. */
export async function revokeGrantOf(db: Db, accountId: string, grantId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const { rows } = await tx.query(`select id from oauth_grants where id = $1 and account_id = $2`, [
      grantId,
      accountId,
    ]);
    if (!rows.length)
      throw new NotFound("not_found", `this account has no connected app ${grantId}`, { context: { field: "id" } });
    await revokeGrantTx(tx, grantId, "user");
  });
}
