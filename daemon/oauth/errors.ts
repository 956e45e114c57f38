/**
 * OAuth's own refusals. The token, registration and revocation endpoints answer in the shape the
 * RFCs fix (`{error, error_description}`, RFC 6749 section 5.2 and RFC 7591 section 3.2.2), because
 * every OAuth client library parses that shape; `field` names what was wrong, as clipd's own
 * envelopes do. They are `Refused` (the caller's mistake) so anything that does not know OAuth
 * still maps them to a 400.
 */
import { Refused } from "../domain/errors.js";

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "invalid_target"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "unsupported_response_type"
  | "access_denied"
  | "slow_down";

export class OAuthRefusal extends Refused {
  declare readonly code: OAuthErrorCode;
  constructor(
    code: OAuthErrorCode,
    message: string,
    readonly field?: string,
    /** 401 for a client that is not known (RFC 6749 section 5.2), 429 for a limit; else 400. */
    readonly status = code === "invalid_client" ? 401 : 400,
    readonly retryAfter?: number,
  ) {
    super(code, message, { context: field ? { field } : {} });
  }

  /** The RFC's error body, with the field that was wrong. */
  body(): { error: OAuthErrorCode; error_description: string; field?: string } {
    return { error: this.code, error_description: this.message, ...(this.field ? { field: this.field } : {}) };
  }
}
