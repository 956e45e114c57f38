/**
 * /mcp: the tool server as MCP Streamable HTTP, stateless. Every POST gets a fresh SDK transport
 * and Server bound to the request's Caller, so nothing is kept between requests and any process
 * of a deployment can answer any call. Without sessions there is no server-to-client stream to
 * open (GET) or session to end (DELETE): both answer 405, as the transport spec allows.
 *
 * The key is checked before the MCP message is read: a missing, unknown, revoked or free key gets
 * the API's 401 envelope with WWW-Authenticate (what MCP clients look for to start sign-in), counted
 * against the address's rate-limit bucket as the API counts refused keys. Scopes are judged per
 * tool call, by the operation, as on the API.
 */
import * as streamableHttp from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { requireKey } from "../auth.js";
import type { Caller } from "../core/caller.js";
import { toErrorBody } from "../errors.js";
import { applyRate } from "../ratelimit.js";
import type { FacadeServices } from "../services.js";
import type { McpCore } from "./server.js";

export const MCP_PATH = "/mcp";

function jsonResponse(status: number, body: unknown, headers: Headers): Response {
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify(body), { status, headers });
}

export function mcpHttpHandler(core: McpCore, services: FacadeServices, maxBodyBytes: number) {
  return async function handle(req: Request, caller: Caller): Promise<Response> {
    const headers = new Headers();
    if (req.method !== "POST") {
      headers.set("allow", "POST");
      return jsonResponse(
        405,
        {
          jsonrpc: "2.0",
          error: { code: -32000, message: "this tool server is stateless: send each JSON-RPC message by POST" },
          id: null,
        },
        headers,
      );
    }
    try {
      await requireKey(caller.bearer, services.accounts, null);
    } catch (err) {
      const { status, body } = toErrorBody(err);
      try {
        applyRate(services.rates, `ip:${caller.clientAddr}`, headers);
      } catch (limited) {
        const l = toErrorBody(limited);
        return jsonResponse(l.status, l.body, headers);
      }
      if (status === 401)
        headers.set(
          "www-authenticate",
          `Bearer realm="clipd", error="invalid_token", error_description="send an ` +
            `account API key (svc_live_ or svc_test_)"`,
        );
      return jsonResponse(status, body, headers);
    }
    const transport = new streamableHttp.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: maxBodyBytes,
    });
    const server = core.server(caller);
    await server.connect(transport);
    try {
      return await transport.handleRequest(req);
    } finally {
      // The JSON answer is complete once handleRequest returns; nothing outlives the request.
      await server.close();
    }
  };
}
