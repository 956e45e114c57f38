/**
 * Dynamic client registration (RFC 7591), bounded: anyone may register, so what a client may say
 * is small and checked. Every client is public (token_endpoint_auth_method "none": a chat app's
 * connector cannot keep a secret, PKCE stands in for one). Redirect URIs are https, or http on a
 * loopback address for desktop apps (RFC 8252 section 7.3); at most 5 of at most 500 characters,
 * no fragment. A name is at most 100 characters and is shown on the consent page as the client
 * says it, so the page also shows the redirect host, which the client cannot dress up. Each client
 * address may register 20 clients an hour (web_limit_hits, shared by every process).
 */
import { randomBytes } from "node:crypto";
import type { Db, Queryable } from "../store/db.js";
import { takeHit } from "../web/hit-limits.js";
import { OAuthRefusal } from "./errors.js";

export const MAX_REDIRECT_URIS = 5;
export const MAX_URI_LENGTH = 500;
export const MAX_NAME_LENGTH = 100;
export const REGISTRATIONS_PER_ADDRESS_PER_HOUR = 20;

export interface OAuthClient {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  client_id_issued_at: number;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Text PostgreSQL cannot store or a page should not show: NUL, other control characters and lone
 * UTF-16 surrogates. Found here, a name or URI carrying one is a 400 naming its field, not a 500.
 */
const BAD_TEXT = /[\u0000-\u001f\u007f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `uri` may not be a redirect URI, or undefined when it may. */
export function redirectUriFault(uri: unknown): string | undefined {
  if (typeof uri !== "string" || !uri) return "each redirect URI must be a non-empty string";
  if (uri.length > MAX_URI_LENGTH) return `a redirect URI has at most ${MAX_URI_LENGTH} characters`;
  if (BAD_TEXT.test(uri)) return "a redirect URI may not hold control characters or invalid Unicode";
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return `${uri} is not an absolute URL`;
  }
  if (u.hash || uri.includes("#")) return `${uri} has a fragment, which a redirect URI may not have`;
  if (u.username || u.password) return `${uri} carries a user name or password`;
  if (u.protocol === "https:") return undefined;
  if (u.protocol === "http:" && LOOPBACK.has(u.hostname)) return undefined;
  return `${uri} must be https, or http on localhost, 127.0.0.1 or [::1]`;
}

const meta = (message: string, field: string) => new OAuthRefusal("invalid_client_metadata", message, field);

/** The registration request checked; the refusal names the field (RFC 7591 section 3.2.2). */
export function checkRegistration(body: unknown): { name: string; redirectUris: string[] } {
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw new OAuthRefusal("invalid_request", "the body must be a JSON object of client metadata", "body");
  const b = body as Record<string, unknown>;
  const uris = b.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0)
    throw new OAuthRefusal("invalid_redirect_uri", "redirect_uris must list at least one URI", "redirect_uris");
  if (uris.length > MAX_REDIRECT_URIS)
    throw new OAuthRefusal(
      "invalid_redirect_uri",
      `redirect_uris lists at most ${MAX_REDIRECT_URIS} URIs`,
      "redirect_uris",
    );
  for (const uri of uris) {
    const fault = redirectUriFault(uri);
    if (fault) throw new OAuthRefusal("invalid_redirect_uri", fault, "redirect_uris");
  }
  const name = b.client_name ?? "Unnamed app";
  if (typeof name !== "string" || !name.trim()) throw meta("client_name must be a non-empty string", "client_name");
  if (name.length > MAX_NAME_LENGTH) throw meta(`client_name has at most ${MAX_NAME_LENGTH} characters`, "client_name");
  if (BAD_TEXT.test(name))
    throw meta("client_name may not hold control characters (such as NUL) or invalid Unicode", "client_name");
  const only = (field: string, allowed: string[]) => {
    const v = b[field];
    if (v === undefined) return;
    if (!Array.isArray(v) || v.some((x) => typeof x !== "string" || !allowed.includes(x)))
      throw meta(`${field} may name only ${allowed.join(", ")}`, field);
  };
  only("grant_types", ["authorization_code", "refresh_token"]);
  only("response_types", ["code"]);
  const method = b.token_endpoint_auth_method;
  if (method !== undefined && method !== "none")
    throw meta(
      "token_endpoint_auth_method must be none: clients here are public and prove themselves with PKCE",
      "token_endpoint_auth_method",
    );
  return { name: name.trim(), redirectUris: uris as string[] };
}

/** Registers a client for `addr`, within the per-address limit. */
export async function registerClient(db: Db, body: unknown, addr: string): Promise<OAuthClient> {
  const { name, redirectUris } = checkRegistration(body);
  const hit = await takeHit(db, [
    {
      subject: `oauth-register:addr:${addr}`,
      limit: REGISTRATIONS_PER_ADDRESS_PER_HOUR,
      windowSeconds: 3600,
      per: "address",
    },
  ]);
  if (!hit.ok)
    throw new OAuthRefusal(
      "slow_down",
      `this address registered ${REGISTRATIONS_PER_ADDRESS_PER_HOUR} clients in the last hour; try again later`,
      "address",
      429,
      hit.retryAfter,
    );
  const id = `clipd_client_${randomBytes(16).toString("base64url")}`;
  const { rows } = await db.query(
    `insert into oauth_clients (id, name, redirect_uris) values ($1, $2, $3) returning created_at`,
    [id, name, redirectUris],
  );
  const at = new Date(rows[0].created_at as string | Date).getTime();
  return { client_id: id, client_name: name, redirect_uris: redirectUris, client_id_issued_at: Math.floor(at / 1000) };
}

export async function findClient(q: Queryable, id: string): Promise<OAuthClient | undefined> {
  if (id.length > 100) return undefined;
  const { rows } = await q.query(`select * from oauth_clients where id = $1`, [id]);
  const r = rows[0];
  if (!r) return undefined;
  return {
    client_id: r.id,
    client_name: r.name,
    redirect_uris: r.redirect_uris,
    client_id_issued_at: Math.floor(new Date(r.created_at).getTime() / 1000),
  };
}
