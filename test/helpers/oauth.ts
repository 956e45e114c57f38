// OAuth against a test server, without a browser: register a client, walk /oauth/authorize and the
// consent calls with a signed-in WebClient, and call the token and revocation endpoints as forms.
import { createHash, randomBytes } from "node:crypto";
import type { WebClient } from "./web.js";

export const REDIRECT = "http://127.0.0.1:8765/callback";

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export async function register(
  base: string,
  body: Record<string, unknown> = { client_name: "Test Chat", redirect_uris: [REDIRECT] },
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

export async function form(base: string, path: string, params: Record<string, string | undefined>) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) body.set(k, v);
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body,
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** The authorization request's parameters for `clientId`, with any of them replaced. */
export function authParams(
  base: string,
  clientId: string,
  challenge: string,
  over: Record<string, string | undefined> = {},
): Record<string, string> {
  const p: Record<string, string | undefined> = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "clips.read clips.write",
    state: "st-123",
    resource: `${base}/mcp`,
    ...over,
  };
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as Record<string, string>;
}

/** GET /oauth/authorize with the client's cookies; the answer's status and Location. */
export async function authorize(base: string, web: WebClient | undefined, params: Record<string, string>) {
  const headers: Record<string, string> = {};
  if (web?.cookies.size) headers.cookie = [...web.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; ");
  const res = await fetch(`${base}/oauth/authorize?${new URLSearchParams(params)}`, { headers, redirect: "manual" });
  const text = await res.text();
  return { status: res.status, location: res.headers.get("location"), body: text ? JSON.parse(text) : undefined };
}

/** Allows (or denies) the request as the signed-in `web` client; the URL the browser is sent to. */
export async function decide(web: WebClient, params: Record<string, string>, decision: "allow" | "deny" = "allow") {
  const r = await web.call("POST", "/api/v1/oauth/consent", { params, decision });
  if (r.status !== 200) throw new Error(`consent answered ${r.status}: ${JSON.stringify(r.body)}`);
  return new URL(r.body.redirect_to as string);
}

/** A code for `clientId` allowed by `web`, with its verifier. */
export async function codeFor(base: string, web: WebClient, clientId: string, over: Record<string, string> = {}) {
  const { verifier, challenge } = pkcePair();
  const params = authParams(base, clientId, challenge, over);
  const back = await decide(web, params);
  return { code: back.searchParams.get("code")!, verifier, params };
}

/** Exchanges a code at the token endpoint. */
export function exchange(base: string, clientId: string, code: string, verifier: string, over = {}) {
  return form(base, "/oauth/token", {
    grant_type: "authorization_code",
    client_id: clientId,
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
    resource: `${base}/mcp`,
    ...over,
  });
}

/** One JSON-RPC call to /mcp with a Bearer token (no SDK: to read the HTTP status and headers). */
export async function mcpPost(base: string, token: string | undefined, method = "tools/list") {
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: {} }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}
