/**
 * /mcp: the tool server as MCP Streamable HTTP, stateless. Every POST gets a fresh SDK transport
 * and Server bound to the request's Caller, so nothing is kept between requests and any process
 * of a deployment can answer any call. Without sessions there is no server-to-client stream to
 * open (GET) or session to end (DELETE): only POST is routed (facade/app.ts), so every other
 * method gets the fallback's 405 with `Allow: POST`.
 *
 * In order, before the MCP message is read by the SDK:
 * 1. Origin and Host (transport-guard.ts): a browser page of a foreign origin, or a rebound DNS
 *    name, gets 403.
 * 2. The key or OAuth access token: a missing, unknown, revoked or free one gets the API's 401
 *    envelope with WWW-Authenticate naming the resource metadata (what MCP clients read to start
 *    OAuth, facade/oauth/), counted against the address's
 *    rate-limit bucket as the API counts refused keys. Scopes are judged per tool call, by the
 *    operation, as on the API.
 * 3. The body: a JSON-RPC batch only under a protocol version that has batches (2025-03-26 and
 *    before; 2025-06-18 removed them).
 * A call that carries a progressToken is answered as an SSE stream, so the progress notifications
 * travel before the result; every other answer is one JSON body.
 */
import * as streamableHttp from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { readJsonBody } from "../_body.js";
import { requireKey } from "../auth.js";
import { bearerAudience, mcpChallenge } from "../oauth/urls.js";
import type { Caller } from "../core/caller.js";
import { toErrorBody } from "../errors.js";
import { applyRate } from "../ratelimit.js";
import type { FacadeServices } from "../services.js";
import type { McpCore } from "./server.js";
import { batchRefusal, guardRequest, wantsProgress } from "./transport-guard.js";

export const MCP_PATH = "/mcp";

function jsonResponse(status: number, body: unknown, headers: Headers): Response {
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify(body), { status, headers });
}

const rpcError = (code: number, message: string) => ({ jsonrpc: "2.0", error: { code, message }, id: null });

export function mcpHttpHandler(core: McpCore, services: FacadeServices, maxBodyBytes: number) {
  return async function handle(req: Request, caller: Caller): Promise<Response> {
    const headers = new Headers();
    const guarded = guardRequest(req, services.config);
    if (guarded) return jsonResponse(403, guarded, headers);
    try {
      await requireKey(caller.bearer, services.accounts, null, bearerAudience(caller, services));
    } catch (err) {
      const { status, body } = toErrorBody(err);
      try {
        applyRate(services.rates, `ip:${caller.clientAddr}`, headers);
      } catch (limited) {
        const l = toErrorBody(limited);
        return jsonResponse(l.status, l.body, headers);
      }
      // Names the resource metadata (RFC 9728), where an MCP client starts OAuth (facade/oauth/).
      if (status === 401) headers.set("www-authenticate", mcpChallenge(services.config, caller));
      return jsonResponse(status, body, headers);
    }
    let parsed: unknown;
    try {
      parsed = await readJsonBody(req, maxBodyBytes);
    } catch (err) {
      const { status, body } = toErrorBody(err);
      return jsonResponse(
        status,
        rpcError(status === 400 ? -32700 : -32000, String((body as { error: { message: unknown } }).error.message)),
        headers,
      );
    }
    if (parsed === undefined)
      return jsonResponse(400, rpcError(-32700, "the body must be a JSON-RPC message"), headers);
    const batch = batchRefusal(parsed, req.headers.get("mcp-protocol-version"));
    if (batch) return jsonResponse(400, rpcError(-32600, batch), headers);
    const stream = wantsProgress(parsed);
    // The caller's going away (a closed stream) stops a wait at once.
    const gone = new AbortController();
    const transport = new streamableHttp.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !stream,
      maxRequestBodySize: maxBodyBytes,
    });
    const server = core.server({ ...caller, signal: gone.signal });
    await server.connect(transport);
    let res: Response;
    try {
      res = await transport.handleRequest(req, { parsedBody: parsed });
    } catch (err) {
      await server.close();
      throw err;
    }
    // A JSON answer is complete once handleRequest returns; nothing outlives the request.
    if (!stream || !res.body) {
      await server.close();
      return res;
    }
    // A stream ends after the last result is written: close then, or when the client leaves.
    return new Response(
      closingAfter(res.body, () => (gone.abort(), server.close())),
      res,
    );
  };
}

/** `body` passed through; `end` runs once when it ends or the reader cancels. */
function closingAfter(body: ReadableStream<Uint8Array>, end: () => Promise<void>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    void end().catch(() => {});
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        finish();
      } else controller.enqueue(value);
    },
    async cancel(reason) {
      finish();
      await reader.cancel(reason);
    },
  });
}
