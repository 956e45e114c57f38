/**
 * `clipd mcp --stdio`: the tool server for desktop clients that start a command (Claude Desktop,
 * Cursor). It relays JSON-RPC between stdin/stdout and a clipd's /mcp with the API key, so the
 * tools, auth, rate limits and origin "chat" are exactly the HTTP tool server's: there is one tool
 * server, and this is a pipe to it. daemon/boot/main.ts points it at CLIPD_URL, or at a clipd it starts
 * in-process on the embedded database. stdout carries only JSON-RPC; diagnostics go to stderr.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MCP_PATH } from "./http.js";

/** The /mcp address of a clipd given as its base URL (a trailing /mcp is accepted too). */
export function mcpUrlOf(base: string): URL {
  return new URL(base.replace(/\/+$/, "").replace(/\/mcp$/, "") + MCP_PATH);
}

export interface StdioRelay {
  /** Resolves when the client closes stdin (or the relay fails for good). */
  closed: Promise<void>;
}

export async function relayStdio(opts: {
  url: string;
  apiKey: string;
  warn?: (message: string) => void;
}): Promise<StdioRelay> {
  const warn = opts.warn ?? ((m: string) => void process.stderr.write(`clipd mcp: ${m}\n`));
  const upstream = new StreamableHTTPClientTransport(mcpUrlOf(opts.url), {
    requestInit: { headers: { authorization: `Bearer ${opts.apiKey}` } },
  });
  const local = new StdioServerTransport();
  let done!: () => void;
  const closed = new Promise<void>((resolve) => (done = resolve));

  local.onmessage = (message: JSONRPCMessage) => {
    upstream.send(message).catch((err: Error & { code?: number }) => {
      // The client is waiting for an answer to its request: give it the failure as one.
      warn(err.message);
      if (isJSONRPCRequest(message))
        void local.send({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: -32000, message: `clipd at ${opts.url}: ${err.message}` },
        });
    });
  };
  upstream.onmessage = (message) => {
    // The negotiated version goes on every later request, as the HTTP transport expects.
    const version = (message as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    if (typeof version === "string") upstream.setProtocolVersion(version);
    void local.send(message);
  };
  upstream.onerror = (err) => warn(err.message);
  local.onerror = (err) => warn(err.message);
  local.onclose = () => {
    void upstream.close().finally(done);
  };
  // stdin's end is the client going away.
  process.stdin.once("end", () => void local.close());
  await upstream.start();
  await local.start();
  return { closed };
}
