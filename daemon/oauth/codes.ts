/**
 * The authorization request and its one-time code. A request is judged in two steps (RFC 6749
 * section 4.1.2.1): while the client or its redirect URI is not known to be right, nothing may be
 * sent to that URI, so the refusal is shown to the user; after that, a refusal goes back to the
 * client on its redirect URI. PKCE S256 is mandatory; the scopes are the API keys' four; the
 * resource (RFC 8707) must be this server's /mcp URL, and is that when the client names none.
 * A code lives 60 s, is stored as its sha256 and is bound to everything the request said.
 */
import { SCOPES, type Scope } from "../account/accounts.js";
import type { Queryable } from "../store/db.js";
import { findClient, type OAuthClient } from "./clients.js";
import { OAuthRefusal } from "./errors.js";
import { CHALLENGE, CODE_PREFIX, digest, newSecret } from "./secrets.js";

export const CODE_TTL_SECONDS = 60;
const MAX_STATE = 1000;

export interface AuthorizeRequest {
  client: OAuthClient;
  redirectUri: string;
  state?: string;
  scopes: Scope[];
  challenge: string;
  resource: string;
}

export type AuthorizeCheck =
  | { ok: AuthorizeRequest }
  /** Shown to the user: the client or its redirect URI is not known to be right. */
  | { show: OAuthRefusal }
  /** Sent back to the client on its redirect URI. */
  | { back: OAuthRefusal; redirectUri: string; state?: string };

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** Judges an authorization request's parameters against the registered client and this resource. */
export async function checkAuthorize(
  q: Queryable,
  params: Record<string, unknown>,
  expectedResource: string,
): Promise<AuthorizeCheck> {
  const clientId = str(params.client_id);
  const client = clientId ? await findClient(q, clientId) : undefined;
  if (!client)
    return {
      show: new OAuthRefusal(
        "invalid_client",
        clientId ? `no client ${clientId} is registered here` : "client_id is required",
        "client_id",
      ),
    };
  const redirectUri = str(params.redirect_uri);
  if (!redirectUri || !client.redirect_uris.includes(redirectUri))
    return {
      show: new OAuthRefusal(
        "invalid_request",
        redirectUri
          ? `redirect_uri ${redirectUri} is not one the client ${client.client_name} registered`
          : "redirect_uri is required",
        "redirect_uri",
      ),
    };
  const state = str(params.state);
  const back = (refusal: OAuthRefusal): AuthorizeCheck => ({ back: refusal, redirectUri, state });
  if (state !== undefined && state.length > MAX_STATE)
    return back(new OAuthRefusal("invalid_request", `state has at most ${MAX_STATE} characters`, "state"));
  if (params.response_type !== "code")
    return back(new OAuthRefusal("unsupported_response_type", "response_type must be code", "response_type"));
  const challenge = str(params.code_challenge);
  if (!challenge || params.code_challenge_method !== "S256")
    return back(
      new OAuthRefusal(
        "invalid_request",
        "PKCE is required: send code_challenge with code_challenge_method=S256",
        challenge ? "code_challenge_method" : "code_challenge",
      ),
    );
  if (!CHALLENGE.test(challenge))
    return back(
      new OAuthRefusal("invalid_request", "code_challenge must be the base64url of a sha256", "code_challenge"),
    );
  const asked = (str(params.scope) ?? "").split(" ").filter(Boolean);
  const unknown = asked.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length)
    return back(
      new OAuthRefusal(
        "invalid_scope",
        `unknown scope ${unknown.join(", ")}; scopes are ${SCOPES.join(", ")}`,
        "scope",
      ),
    );
  const scopes = asked.length ? SCOPES.filter((s) => asked.includes(s)) : [...SCOPES];
  const resource = str(params.resource) ?? expectedResource;
  if (resource !== expectedResource)
    return back(
      new OAuthRefusal(
        "invalid_target",
        `resource must be ${expectedResource}, this server's MCP endpoint`,
        "resource",
      ),
    );
  return { ok: { client, redirectUri, state, scopes, challenge, resource } };
}

/** Makes the one-time code for an allowed request. */
export async function issueCode(q: Queryable, accountId: string, req: AuthorizeRequest): Promise<string> {
  const code = newSecret(CODE_PREFIX);
  await q.query(
    `insert into oauth_codes
       (code_hash, client_id, account_id, redirect_uri, code_challenge, scopes, resource, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8::int))`,
    [
      digest(code),
      req.client.client_id,
      accountId,
      req.redirectUri,
      req.challenge,
      req.scopes,
      req.resource,
      CODE_TTL_SECONDS,
    ],
  );
  // Spent and expired codes are of no use after a day; swept now and then by whoever makes one.
  if (Math.random() < 0.05) await q.query(`delete from oauth_codes where expires_at < now() - interval '1 day'`);
  return code;
}

/** The client's redirect URI with `params` added (state passed back as it came). */
export function redirectWith(uri: string, params: Record<string, string | undefined>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}
