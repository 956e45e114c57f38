/**
 * Signed links served by clipd: upload addresses (PUT, 2 h), download links (GET, 7 days) and
 * results links (the site's /r/<token> page of a transcript, 7 days like its downloads).
 * A token is base64url(JSON claims) + "." + base64url(HMAC-SHA256(secret, claims)). The secret is
 * `server.signing_secret`, or one generated once and kept in the database so that every facade
 * process signs and checks alike. Tokens carry their expiry; a changed or expired token is refused.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Db } from "../daemon/store/db.js";
import { ApiError } from "./errors.js";

export interface LinkClaims {
  /** What the link is for: "upload", "download", or "results" (a transcript's results page). */
  k: "upload" | "download" | "results";
  /** Storage key; for a results link, `account:<transcript id>` or `free:<free job id>`. */
  key: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
  /** Name offered to the browser, for downloads. */
  name?: string;
  /** Content type, for downloads; expected extension check for uploads. */
  type?: string;
  /** Upload size cap in bytes. */
  max?: number;
  /** Whatever the issuer needs back (episode id, account id). */
  ref?: string;
  /** A test-mode upload: checked, counted, and not stored. */
  test?: boolean;
}

export const UPLOAD_TTL_SECONDS = 2 * 3600;
export const DOWNLOAD_TTL_SECONDS = 7 * 24 * 3600;

const b64 = (b: Buffer | string) => Buffer.from(b).toString("base64url");
/** A token as sign() makes it: base64url claims (bounded), one dot, a 32-byte MAC in 43 base64url characters. */
const TOKEN = /^([A-Za-z0-9_-]{1,4096})\.([A-Za-z0-9_-]{43})$/;

export class LinkSigner {
  private constructor(private readonly secret: Buffer) {}

  static async create(db: Db, configured?: string): Promise<LinkSigner> {
    if (configured) return new LinkSigner(Buffer.from(configured));
    await db.query(
      `insert into settings (name, value) values ('link_signing_secret', $1) on conflict (name) do nothing`,
      [randomBytes(32).toString("base64")],
    );
    const { rows } = await db.query<{ value: string }>(`select value from settings where name = 'link_signing_secret'`);
    return new LinkSigner(Buffer.from(rows[0]!.value, "base64"));
  }

  /** Signs `claims` for `ttlSeconds` from now, or until `untilSeconds` (Unix time) when given. */
  sign(
    claims: Omit<LinkClaims, "exp">,
    ttlSeconds: number,
    untilSeconds?: number,
  ): { token: string; expiresAt: string } {
    const exp = untilSeconds ?? Math.floor(Date.now() / 1000) + ttlSeconds;
    const body = b64(JSON.stringify({ ...claims, exp }));
    const mac = b64(createHmac("sha256", this.secret).update(body).digest());
    return { token: `${body}.${mac}`, expiresAt: new Date(exp * 1000).toISOString() };
  }

  /**
   * Returns the claims of a valid token for `kind`, or throws 403/410 in the error envelope. The
   * token is parsed strictly: exactly two parts, the claims in base64url and the MAC exactly 43
   * base64url characters (32 bytes), so no second spelling of a token (trailing text, a third part,
   * characters the decoder skips) is ever accepted; the MAC is compared in constant time.
   */
  verify(token: string, kind: LinkClaims["k"]): LinkClaims {
    const bad = () =>
      new ApiError(403, "bad_signature", "this link is not valid: it was changed or not issued by clipd");
    const m = TOKEN.exec(token);
    if (!m) throw bad();
    const body = m[1]!;
    // Compared as text: a decoder ignores the last character's spare bits, so four spellings of one
    // MAC would decode alike; only the one sign() writes is accepted.
    const expected = Buffer.from(b64(createHmac("sha256", this.secret).update(body).digest()));
    if (!timingSafeEqual(Buffer.from(m[2]!), expected)) throw bad();
    let claims: LinkClaims;
    try {
      claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
    } catch {
      throw new ApiError(403, "bad_signature", "this link is not valid");
    }
    if (typeof claims !== "object" || claims === null || typeof claims.exp !== "number") throw bad();
    if (claims.k !== kind) throw new ApiError(403, "bad_signature", `this is not a ${kind} link`);
    if (claims.exp * 1000 <= Date.now())
      throw new ApiError(
        410,
        "link_expired",
        `this ${kind} link expired at ${new Date(claims.exp * 1000).toISOString()}; ask the API for a new one`,
      );
    return claims;
  }
}
