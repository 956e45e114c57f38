/**
 * Who is asking, as a transport (HTTP, the MCP tool server, the website) tells the operation core.
 * Plain data (one type import), so the registry, auth and the core can all name it.
 */
import type { AccountSurface } from "../../daemon/account/surfaces.js";

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
}

