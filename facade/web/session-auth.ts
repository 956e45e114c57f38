/**
 * A signed-in browser session as an AuthContext: it stands for its account with every scope, in
 * live mode. Code written for keys reads `auth.key.id` for the rate limit and GET /me, so the
 * session gets a stable pseudo key `session:<session id>`. An account under billing review may
 * still manage its keys and account (web-only operations), but the API's operations refuse live
 * work for it as they do for its live keys.
 */
import { SCOPES, type AccountService, type ApiKey } from "../../daemon/account/accounts.js";
import type { WebSession } from "../../daemon/web/sessions.js";
import type { AuthContext } from "../auth.js";
import { ApiError } from "../errors.js";

export async function requireSession(
  session: WebSession | undefined,
  accounts: AccountService,
  opts: { apiOperation: boolean },
): Promise<AuthContext> {
  if (!session)
    throw new ApiError(
      401,
      "unauthorized",
      "sign in first: this call needs a signed-in session (cookie clipd_session)",
    );
  const account = await accounts.getAccount(session.account_id);
  if (!account) throw new ApiError(401, "unauthorized", "the session's account no longer exists; sign in again");
  if (opts.apiOperation && account.billing_review)
    throw new ApiError(403, "billing_review", "this account is under billing review; contact support");
  const key: ApiKey = {
    id: `session:${session.id}`,
    account_id: account.id,
    name: "web session",
    prefix: "session",
    mode: "live",
    scopes: [...SCOPES],
    expires_at: session.expires_at,
    revoked_at: null,
    created_at: session.created_at,
    last_used_at: null,
  };
  return { key, account, livemode: true, session: { id: session.id } };
}
