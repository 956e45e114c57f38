/**
 * Who is asking, as a transport (HTTP, the MCP tool server, the website) tells the operation core.
 * Plain data (one type import), so the registry, auth and the core can all name it.
 */
import type { AccountSurface } from "../../daemon/account/surfaces.js";
import type { WebSession } from "../../daemon/web/sessions.js";

/** Which surface a request came through; recorded with the work it starts (runs.origin). */
export type Surface = AccountSurface;

/** Who is asking, as a transport tells it. */
export interface Caller {
  surface: Surface;
  /** The token presented (an API key, the ops token or a free key), if any. */
  bearer?: string;
  /** Whether any credentials were presented at all, well-formed or not. */
  presentedCredentials: boolean;
  /** The peer's address, and the first address a proxy reported (used only where trusted). */
  clientAddr: string;
  forwardedAddr?: string;
  /** The origin links in answers point at, when server.public_url is not set. */
  linkOrigin?: string;
  idempotencyKey?: string | null;
  /** The raw HTTP request, for the HTTP-only operations (signed uploads and downloads). */
  request?: Request;
  /**
   * Progress of a long call, where the transport can carry it (an MCP call with a progressToken):
   * operations that wait report through it. Absent: nobody is listening.
   */
  progress?: (p: { progress: number; total?: number; message?: string }) => Promise<void>;
  /** Aborted when the caller gives up (an MCP notifications/cancelled, a closed stream). */
  signal?: AbortSignal;
  /** What the web transport (facade/web/) knows of the browser; set only on the web surface. */
  web?: WebCaller;
}

/** The browser behind a /web call: its session, its CSRF cookie, and the cookies to set in the answer. */
export interface WebCaller {
  /** The live session the clipd_session cookie stands for, if any. */
  session?: WebSession;
  /** The clipd_csrf cookie of a signed-out browser, if it sent one. */
  csrfCookie?: string;
  /** The site's origin (server.public_url's, else the request's): links in mails point there. */
  siteOrigin: string;
  /**
   * Cookies the answer sets, filled by the web-only handlers: a new session ({token, maxAge} at
   * sign-in) or null to clear it (sign-out); a new signed-out CSRF token.
   */
  set: { session?: { token: string; maxAgeSeconds: number } | null; csrf?: string };
}
