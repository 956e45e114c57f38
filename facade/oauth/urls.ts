/**
 * Where the OAuth pieces live, as URLs. With server.public_url set, every URL (the issuer, the
 * endpoints, the resource /mcp) is made from its origin and never from the request, so a forged
 * Host header cannot move them. Without it, they are made from the origin the request came to (its
 * Host header): right for a clipd on localhost or a LAN address, wrong behind a proxy that rewrites
 * Host, which is why a deployment behind one sets server.public_url (docs/mcp.md).
 */
import type { Config } from "../../config/loader.js";
import type { Caller } from "../core/caller.js";
import type { FacadeServices } from "../services.js";

export const MCP_RESOURCE_PATH = "/mcp";
export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";
export const AUTHORIZATION_SERVER_PATH = "/.well-known/oauth-authorization-server";

/** The issuer: server.public_url's origin, else the request's; undefined when neither is known. */
export function oauthBase(config: Config, requestOrigin: string | undefined): string | undefined {
  if (config.server.public_url) return new URL(config.server.public_url).origin;
  return requestOrigin;
}

/** The protected resource (RFC 8707's audience of every token): this server's /mcp. */
export const mcpResource = (base: string): string => base + MCP_RESOURCE_PATH;

/** Where a client reads the resource's metadata (RFC 9728), named in /mcp's WWW-Authenticate. */
export const resourceMetadataUrl = (base: string): string => base + PROTECTED_RESOURCE_PATH + MCP_RESOURCE_PATH;

/**
 * What an OAuth access token is checked against: given only to calls that came through /mcp (the
 * chat surface), so a token is refused on the REST API and the website.
 */
export function bearerAudience(
  caller: Caller,
  services: Pick<FacadeServices, "config" | "oauth">,
): { oauth: FacadeServices["oauth"]; resource: string } | undefined {
  if (caller.surface !== "chat") return undefined;
  const base = oauthBase(services.config, caller.linkOrigin);
  return base ? { oauth: services.oauth, resource: mcpResource(base) } : undefined;
}

/**
 * /mcp's 401 challenge (RFC 6750 section 3, RFC 9728 section 5.1): where the resource metadata is,
 * and the scopes there are. A request without credentials gets no error code (RFC 6750 3.1).
 */
export function mcpChallenge(config: Config, caller: Caller): string {
  const base = oauthBase(config, caller.linkOrigin);
  const parts = [`Bearer realm="clipd"`];
  if (caller.presentedCredentials)
    parts.push(
      `error="invalid_token"`,
      `error_description="send an OAuth access token for this server's /mcp, or an API key (svc_live_ or svc_test_)"`,
    );
  if (base) parts.push(`resource_metadata="${resourceMetadataUrl(base)}"`);
  return parts.join(", ");
}
