/**
 * The single-use tokens of mail links (address verification, password reset): random, stored as
 * sha256 only, valid for one hour, and spent in the transaction that acts on them.
 */
import type { Queryable } from "../store/db.js";
import { Refused } from "../domain/errors.js";
import { isToken, newToken, tokenHash } from "./sessions.js";

export type TokenPurpose = "verify" | "reset";
export const TOKEN_TTL_SECONDS = 3600;

export async function issueToken(q: Queryable, accountId: string, purpose: TokenPurpose): Promise<string> {
  const token = newToken();
  await q.query(
    `insert into web_tokens (token_hash, account_id, purpose, expires_at) values ` +
      `($1, $2, $3, now() + make_interval(secs => $4))`,
    [tokenHash(token), accountId, purpose, TOKEN_TTL_SECONDS],
  );
  // Spent and expired tokens of the account are no use to anyone.
  await q.query(`delete from web_tokens where account_id = $1 and (used_at is not null or expires_at <= now())`, [
    accountId,
  ]);
  return token;
}

/** Spends a token in `tx`; returns its account, or refuses with 400 invalid_token naming why. */
export async function spendToken(tx: Queryable, token: string, purpose: TokenPurpose): Promise<string> {
  // Only the exact shape issueToken makes is looked up: no trailing text, no other length.
  const { rows } = isToken(token)
    ? await tx.query(
        `update web_tokens set used_at = now() where token_hash = $1 and purpose = $2 and used_at is null and expires_at > now() returning account_id`,
        [tokenHash(token), purpose],
      )
    : { rows: [] };
  if (!rows[0])
    throw new Refused(
      "invalid_token",
      "this link is unknown, already used or more than an hour old; ask for a new one",
      { context: { field: "token" } },
    );
  return rows[0].account_id;
}
