// The official MCP SDK client against a test server's /mcp, and the two shapes a tool answers in.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";

export async function mcpClient(base: string, key: string): Promise<Client> {
  const client = new Client({ name: "clipd-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}
/** A tool's answer: its structuredContent, or the test fails with the error's text. */
export function ok(r: any): any {
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  return r.structuredContent;
}
/** A refused tool call's `{error:{…}}` envelope (the text of an isError result). */
export function refusal(r: any): { code: string; message: string; field?: string } & Record<string, unknown> {
  expect(r.isError, JSON.stringify(r.content)).toBe(true);
  return JSON.parse(r.content[0].text).error;
}
