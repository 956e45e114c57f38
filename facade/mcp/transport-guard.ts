/**
 * What /mcp checks of a request before any MCP message is handled (http.ts):
 *
 * - Origin: a browser sends it, a desktop or server client does not. A page may call /mcp only
 *   from this server's own origin (the request's, or server.public_url's) or one in
 *   mcp.allowed_origins: anything else is 403, so a page elsewhere cannot drive a user's local
 *   clipd with a key it holds.
 * - Host: a DNS name that was rebound to this machine is refused; localhost, IP addresses,
 *   mcp.allowed_hosts and, when it is set, server.public_url's own host pass. A proxy in front
 *   sends either the public name or the address it reaches clipd by, and both pass; a rebound
 *   name is neither. (Before issue 36 a set public_url turned the check off, and the request's own
 *   origin, made from its Host, then also passed the Origin check.)
 * - Batches: JSON-RPC batches exist in protocol versions up to 2025-03-26 (the version a request
 *   without MCP-Protocol-Version is read as); 2025-06-18 removed them.
 * - Progress: a call with a progressToken is answered as a stream, so its notifications travel.
 */
import { isIP } from "node:net";
import type { Config } from "../../config/loader.js";

/** The last protocol version with JSON-RPC batches, and the one assumed without the header. */
const LAST_BATCH_VERSION = "2025-03-26";

const list = (s: string | undefined) =>
  (s ?? "")
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};

function refusal(field: "Origin" | "Host", value: string, message: string) {
  return { error: { code: "forbidden", message, field, [field.toLowerCase()]: value } };
}

/** A 403 envelope for a foreign Origin or a rebound Host; undefined when the request may go on. */
export function guardRequest(req: Request, config: Config) {
  const mcp = (config as { mcp?: { allowed_origins?: string; allowed_hosts?: string } }).mcp ?? {};
  const publicUrl = config.server.public_url;
  const origin = req.headers.get("origin");
  if (origin !== null) {
    const own = [originOf(req.url), publicUrl ? originOf(publicUrl) : undefined, ...list(mcp.allowed_origins)];
    if (!own.includes(origin))
      return refusal(
        "Origin",
        origin,
        `a page at ${origin} may not call /mcp; the server's operator can allow it in mcp.allowed_origins`,
      );
  }
  const host = req.headers.get("host") ?? new URL(req.url).host;
  const name = hostName(host);
  const publicName = publicUrl ? hostOf(publicUrl) : undefined;
  const allowed =
    name === "localhost" || isIP(name) !== 0 || name === publicName || list(mcp.allowed_hosts).includes(name);
  if (!allowed)
    return refusal(
      "Host",
      host,
      `/mcp does not answer to the name ${name}; use ${publicName ? `${publicName}, ` : ""}localhost or an ` +
        "IP address, or allow it in mcp.allowed_hosts",
    );
  return undefined;
}

/** The host name of a URL, as hostName gives it; undefined for no URL. */
const hostOf = (url: string) => {
  try {
    return hostName(new URL(url).host);
  } catch {
    return undefined;
  }
};

/** The name of a Host header, without its port and an IPv6 address's brackets. */
function hostName(host: string): string {
  const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  if (v6) return v6[1]!;
  return host.replace(/:\d+$/, "").toLowerCase();
}

/**
 * Why a batch is refused under `version` (the MCP-Protocol-Version header); undefined when the body
 * is not a batch or may be one.
 */
export function batchRefusal(body: unknown, version: string | null): string | undefined {
  if (!Array.isArray(body)) return undefined;
  // An initialize inside the batch says the version it asks for.
  const init = body.find((m) => (m as { method?: unknown })?.method === "initialize") as
    | { params?: { protocolVersion?: unknown } }
    | undefined;
  const asked = typeof init?.params?.protocolVersion === "string" ? init.params.protocolVersion : version;
  const v = asked ?? LAST_BATCH_VERSION;
  if (v <= LAST_BATCH_VERSION) return undefined;
  return (
    `JSON-RPC batches are not part of MCP protocol version ${v} ` +
    `(they were removed after ${LAST_BATCH_VERSION}); send one message per POST`
  );
}

/** Whether any request in the body asked for progress (params._meta.progressToken). */
export function wantsProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (m) => (m as { params?: { _meta?: { progressToken?: unknown } } })?.params?._meta?.progressToken !== undefined,
  );
}
