// /mcp's transport hygiene against a real server on loopback: a page of a foreign Origin and a
// rebound Host name are refused with 403 before any key or message is read; an allowed origin
// passes; JSON-RPC batches answer only under a protocol version that has them; only POST answers,
// and the 405 of every other method (OPTIONS too) says so in Allow; unknown /.well-known paths are
// a JSON 404, never the site's HTML.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** A raw request, so the Host header can be any name (fetch sets its own). */
function rawPost(base: string, headers: Record<string, string>, body: string) {
  const url = new URL(`${base}/mcp`);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("MCP transport hygiene", () => {
  let s: ApiServer;
  let key: string;
  beforeAll(async () => {
    s = await openApiServer("pglite", { mcp: { allowed_origins: "https://app.example.com" } });
    key = (await s.account({ creditCents: 0 })).live;
  }, 120_000);
  afterAll(() => s?.close());

  const list = (
    headers: Record<string, string> = {},
    body: unknown = { jsonrpc: "2.0", id: 1, method: "tools/list" },
  ) =>
    fetch(`${s.base}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, authorization: `Bearer ${key}`, ...headers },
      body: JSON.stringify(body),
    });

  it("refuses a foreign Origin with 403 and lets its own and an allowed one through", async () => {
    const foreign = await list({ origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).error).toMatchObject({
      code: "forbidden",
      field: "Origin",
      message: expect.stringContaining("mcp.allowed_origins"),
    });
    for (const origin of [new URL(s.base).origin, "https://app.example.com"]) {
      const res = await list({ origin });
      expect(res.status, origin).toBe(200);
      expect((await res.json()).result.tools.length).toBeGreaterThan(0);
    }
    // Without an Origin (desktop and server clients) nothing is judged.
    expect((await list()).status).toBe(200);
  });

  it("refuses a DNS name rebound to this server, and answers to localhost and IP addresses", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const headers = { ...MCP_HEADERS, authorization: `Bearer ${key}` };
    const port = new URL(s.base).port;
    const rebound = await rawPost(s.base, { ...headers, host: `attacker.example:${port}` }, body);
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error).toMatchObject({ code: "forbidden", field: "Host" });
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`])
      expect((await rawPost(s.base, { ...headers, host }, body)).status, host).toBe(200);
  });

  it("answers a JSON-RPC batch only under a protocol version that has batches", async () => {
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { jsonrpc: "2.0", id: 2, method: "resources/templates/list" },
    ];
    const old = await list({ "mcp-protocol-version": "2025-03-26" }, batch);
    expect(old.status).toBe(200);
    expect(((await old.json()) as Array<{ id: number }>).map((m) => m.id).sort()).toEqual([1, 2]);
    // No header is read as 2025-03-26, as the transport spec says.
    expect((await list({}, batch)).status).toBe(200);
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const refused = await list({ "mcp-protocol-version": version }, batch);
      expect(refused.status, version).toBe(400);
      expect((await refused.json()).error).toMatchObject({ code: -32600, message: expect.stringContaining(version) });
    }
  });

  it("routes only POST: GET, DELETE and OPTIONS get 405 with Allow: POST", async () => {
    for (const method of ["GET", "DELETE", "OPTIONS", "PUT"]) {
      const res = await fetch(`${s.base}/mcp`, { method, headers: { authorization: `Bearer ${key}` } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow"), method).toBe("POST");
      expect((await res.json()).error.code).toBe("method_not_allowed");
    }
  });

  it("answers unknown /.well-known paths with a JSON 404, never the site", async () => {
    for (const p of ["/.well-known/nothing-here", "/.well-known/mcp.json", "/.well-known"]) {
      const res = await fetch(`${s.base}${p}`);
      expect(res.status, p).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/application\/json/);
      expect((await res.json()).error.code).toBe("not_found");
    }
  });
});

describe("MCP transport hygiene with server.public_url set", () => {
  let s: ApiServer;
  let key: string;
  beforeAll(async () => {
    s = await openApiServer("pglite", { server: { public_url: "https://clips.example.com" } });
    key = (await s.account({ creditCents: 0 })).live;
  }, 120_000);
  afterAll(() => s?.close());

  it("checks Host against the configured origin: a rebound name is refused, with its page's Origin too", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const headers = { ...MCP_HEADERS, authorization: `Bearer ${key}` };
    const port = new URL(s.base).port;
    for (const extra of [{}, { origin: `http://attacker.example:${port}` }]) {
      const rebound = await rawPost(s.base, { ...headers, ...extra, host: `attacker.example:${port}` }, body);
      expect(rebound.status, JSON.stringify(extra)).toBe(403);
      expect(JSON.parse(rebound.body).error).toMatchObject({ code: "forbidden", field: "Host" });
    }
    // The public name (as a proxy forwards it), and the address a proxy reaches clipd by, pass.
    for (const host of ["clips.example.com", `127.0.0.1:${port}`, `localhost:${port}`])
      expect((await rawPost(s.base, { ...headers, host }, body)).status, host).toBe(200);
  });
});
