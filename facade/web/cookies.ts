/**
 * The website's cookies. `clipd_session` (the session token) and `clipd_csrf` (a signed-out
 * browser's double-submit token) are both httpOnly, SameSite=Lax, Path=/, and Secure when the site
 * is served over https (web.secure_cookies: auto, always or never; see `secureCookies`).
 */
import type { Config } from "../../config/loader.js";

export const SESSION_COOKIE = "clipd_session";
export const CSRF_COOKIE = "clipd_csrf";

/** The request's cookies by name (first wins); a malformed pair is skipped, the header bounded. */
export function readCookies(header: string | null): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? "").slice(0, 8192).split(";")) {
    const eq = part.indexOf("=");
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    if (out.has(name)) continue;
    try {
      out.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      /* not a cookie of ours */
    }
  }
  return out;
}

/**
 * Whether cookies carry Secure. auto: when server.public_url is https, or the request itself came
 * over https; X-Forwarded-Proto is believed only with free.trust_proxy (a trusted proxy in front).
 */
export function secureCookies(config: Config, req: Request): boolean {
  const mode = config.web.secure_cookies;
  if (mode !== "auto") return mode === "always";
  if (config.server.public_url.startsWith("https://")) return true;
  if (new URL(req.url).protocol === "https:") return true;
  return config.free.trust_proxy && req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

/** A Set-Cookie value; maxAge 0 clears the cookie. */
export function cookie(name: string, value: string, opts: { maxAgeSeconds: number; secure: boolean }): string {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${Math.max(0, Math.floor(opts.maxAgeSeconds))}`,
  ];
  if (opts.secure) parts.push("Secure");
  return parts.join("; ");
}
