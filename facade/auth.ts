/**
 * Bearer-key authentication for the account API. 401 for a missing, unknown, revoked or expired
 * key and for any free-tool key; 403 for a missing scope or an account under billing review.
 */
import type { H3Event } from "h3";
import { keyKind, type Account, type AccountService, type ApiKey } from "../daemon/account/accounts.js";
import { ApiError } from "./errors.js";

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
): Promise<AuthContext> {
  if (!token)
    throw new ApiError(401, "unauthorized", "send your API key as Authorization: Bearer svc_live_… or svc_test_…");
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
