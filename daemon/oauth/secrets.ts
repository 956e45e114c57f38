/**
 * The OAuth secrets (codes, access and refresh tokens): 32 random bytes each, with a prefix that
 * says what it is, so a leaked one is recognisable and a key scanner can find it. Only the sha256
 * of a secret is stored; a lookup goes by that digest and the found row's digest is compared again
 * in constant time, as API keys are (daemon/account/accounts.ts). PKCE is S256 only (OAuth 2.1).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const CODE_PREFIX = "clipd_ac_";
export const ACCESS_PREFIX = "clipd_at_";
export const REFRESH_PREFIX = "clipd_rt_";

export const newSecret = (prefix: string): string => prefix + randomBytes(32).toString("base64url");

export const digest = (secret: string): string => createHash("sha256").update(secret).digest("hex");

/** Two hex digests compared in constant time (both are sha256, so of equal length). */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Whether `token` has the shape of one of our access tokens (anything else is left to the API keys). */
export const isAccessToken = (token: string): boolean => /^clipd_at_[A-Za-z0-9_-]{43}$/.test(token);

/** RFC 7636 section 4.1: 43 to 128 characters of the unreserved set. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** An S256 challenge is the base64url of a sha256: 43 characters. */
export const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Whether `verifier` hashes (S256) to `challenge`; compared in constant time. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier) || !CHALLENGE.test(challenge)) return false;
  const made = Buffer.from(createHash("sha256").update(verifier).digest("base64url"));
  const want = Buffer.from(challenge);
  return made.length === want.length && timingSafeEqual(made, want);
}
