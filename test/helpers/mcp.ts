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

/** Every id (a field named id or …_id) and link (…_url) anywhere in an answer. */
export function idsAndLinksOf(value: unknown): string[] {
  const found: string[] = [];
  const walk = (v: unknown, key: string) => {
    if (typeof v === "string" && /(^|_)id$|_url$|^url$/.test(key)) found.push(v);
    else if (Array.isArray(v)) for (const x of v) walk(x, key);
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(value, "");
  return found;
}

/** A tool answer's text block names every id and link its structuredContent holds (a model may see only the text). */
export function expectTextHoldsIds(r: any): void {
  if (r.isError) return;
  const text = String(r.content?.[0]?.text ?? "");
  expect(text).not.toMatch(/is in structuredContent\)$/);
  for (const id of idsAndLinksOf(r.structuredContent)) expect(text, `text block lacks ${id}`).toContain(id);
}
