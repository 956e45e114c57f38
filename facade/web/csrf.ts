/**
 * CSRF for every state-changing call under /web: the Origin header must be the site's origin, and
 * X-CSRF-Token must equal the session's token (signed in) or the clipd_csrf cookie (signed out,
 * double submit). Both compared in constant time over their sha256, so length leaks nothing.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { WebCaller } from "../core/caller.js";
import { ApiError } from "../errors.js";

export const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

const digest = (s: string) => createHash("sha256").update(s).digest();
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/** Throws 403 csrf_failed naming what is missing or wrong. */
export function checkCsrf(req: Request, web: WebCaller): void {
  const origin = req.headers.get("origin");
  const refuse = (message: string, field: string) => {
    throw new ApiError(403, "csrf_failed", message, { field });
  };
  if (!origin)
    refuse("the Origin header is missing; state-changing calls under /web come from the site's own pages", "Origin");
  if (origin !== web.siteOrigin)
    refuse(`the Origin header "${origin!.slice(0, 200)}" is not this site's origin (${web.siteOrigin})`, "Origin");
  const sent = req.headers.get("x-csrf-token");
  if (!sent)
    refuse("the X-CSRF-Token header is missing; send the csrf_token from GET /web/api/v1/session", "X-CSRF-Token");
  const expected = web.session?.csrf_token ?? web.csrfCookie;
  if (!expected)
    refuse(
      `there is no CSRF token to match: the ${"clipd_csrf"} cookie is missing; call GET /web/api/v1/session first`,
      "X-CSRF-Token",
    );
  if (!sameSecret(sent!, expected!)) {
    refuse(
      web.session
        ? "the X-CSRF-Token header does not match this session's token (it changes " +
            "at every sign-in); call GET /web/api/v1/session again"
        : "the X-CSRF-Token header does not match the clipd_csrf cookie; call GET /web/api/v1/session again",
      "X-CSRF-Token",
    );
  }
}
