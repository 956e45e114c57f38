// OAuth 2.1 for /mcp over real HTTP, without a browser (test/browser/oauth-mcp.test.ts walks the
// same flow with the MCP SDK's own client and Chromium): the metadata documents, the registration's
// bounds, /oauth/authorize's refusals (shown, or sent back to the client), the token endpoint's
// refusals (PKCE, redirect_uri, resource, an expired code, a code used twice), tokens at /mcp only
// and with the scopes allowed, refresh rotation and its reuse, revocation, and the Keys page's list.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OAuthService } from "../../daemon/oauth/service.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";
import { mcpClient } from "../helpers/mcp.js";
import {
  authorize,
  authParams,
  codeFor,
  decide,
  exchange,
  form,
  mcpPost,
  pkcePair,
  REDIRECT,
  register,
} from "../helpers/oauth.js";
import { WebClient } from "../helpers/web.js";

describe.each(testBackends())("OAuth for /mcp on %s", (backend) => {
  let t: ApiServer;
  let web: WebClient;
  let clientId: string;
  beforeAll(async () => {
    t = await openApiServer(backend);
    web = new WebClient(t.base);
    await web.signUp();
    const r = await register(t.base);
    expect(r.status).toBe(201);
    clientId = r.body.client_id;
  }, 60_000);
  afterAll(() => t?.close());

  it("publishes both metadata documents, names them in /mcp's 401, 404s other well-known names in JSON", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const res = await fetch(t.base + path);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        resource: `${t.base}/mcp`,
        authorization_servers: [t.base],
        scopes_supported: ["clips.read", "clips.write", "transcripts", "webhooks"],
      });
    }
    const as = await (await fetch(`${t.base}/.well-known/oauth-authorization-server`)).json();
    expect(as).toMatchObject({
      issuer: t.base,
      authorization_endpoint: `${t.base}/oauth/authorize`,
      token_endpoint: `${t.base}/oauth/token`,
      registration_endpoint: `${t.base}/oauth/register`,
      revocation_endpoint: `${t.base}/oauth/revoke`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
    });
    const unknown = await fetch(`${t.base}/.well-known/openid-configuration`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toMatch(/application\/json/);
    expect((await unknown.json()).error.code).toBe("not_found");
    const bare = await mcpPost(t.base, undefined);
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toBe(
      `Bearer realm="clipd", resource_metadata="${t.base}/.well-known/oauth-protected-resource/mcp"`,
    );
    const wrong = await mcpPost(t.base, `clipd_at_${"x".repeat(43)}`);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toMatch(/error="invalid_token".*resource_metadata="/);
  });

  it("bounds registration: https or loopback redirect URIs, at most 5 of 500 characters, a public client", async () => {
    const refused = async (body: Record<string, unknown>, error: string, field: string) => {
      const r = await register(t.base, body);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body).toMatchObject({ error, field });
    };
    await refused({ redirect_uris: ["http://example.com/cb"] }, "invalid_redirect_uri", "redirect_uris");
    await refused({ redirect_uris: ["https://example.com/cb#x"] }, "invalid_redirect_uri", "redirect_uris");
    await refused(
      { redirect_uris: [`https://example.com/${"a".repeat(500)}`] },
      "invalid_redirect_uri",
      "redirect_uris",
    );
    await refused({ redirect_uris: [] }, "invalid_redirect_uri", "redirect_uris");
    const six = Array.from({ length: 6 }, (_, i) => `https://example.com/${i}`);
    await refused({ redirect_uris: six }, "invalid_redirect_uri", "redirect_uris");
    await refused(
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_basic" },
      "invalid_client_metadata",
      "token_endpoint_auth_method",
    );
    await refused(
      { redirect_uris: [REDIRECT], client_name: "n".repeat(101) },
      "invalid_client_metadata",
      "client_name",
    );
    // Text the database cannot store is a 400 naming its field, not a 500.
    for (const client_name of ["Evil\u0000App", "Two\nlines", "half \ud800 pair"])
      await refused({ redirect_uris: [REDIRECT], client_name }, "invalid_client_metadata", "client_name");
    await refused({ redirect_uris: ["https://example.com/a\u0000b"] }, "invalid_redirect_uri", "redirect_uris");
    const ok = await register(t.base, { client_name: "Desk", redirect_uris: ["http://localhost:9/cb", REDIRECT] });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ client_name: "Desk", token_endpoint_auth_method: "none" });
    expect(ok.body.client_secret).toBeUndefined();
  });

  it("sends a signed-out browser to sign in, keeping the request, and a signed-in one to consent", async () => {
    const { challenge } = pkcePair();
    const params = authParams(t.base, clientId, challenge);
    const out = await authorize(t.base, undefined, params);
    expect(out.status).toBe(302);
    const next = new URL(out.location!, t.base);
    expect(next.pathname).toBe("/signin");
    expect(next.searchParams.get("next")).toBe(`/oauth/consent?${new URLSearchParams(params)}`);
    const signedIn = await authorize(t.base, web, params);
    expect(signedIn.location).toBe(`/oauth/consent?${new URLSearchParams(params)}`);
    const details = await web.call("GET", `/api/v1/oauth/consent?${new URLSearchParams(params)}`);
    expect(details.status).toBe(200);
    expect(details.body).toMatchObject({
      client_name: "Test Chat",
      redirect_host: "127.0.0.1:8765",
      scopes: [{ scope: "clips.read" }, { scope: "clips.write" }],
    });
  });

  it("shows a bad client or redirect URI, and sends every other fault back to the client with its state", async () => {
    const { challenge } = pkcePair();
    const unknownClient = await authorize(t.base, web, authParams(t.base, "clipd_client_nope", challenge));
    expect(unknownClient.status).toBe(401);
    expect(unknownClient.body.error).toMatchObject({ code: "invalid_client", field: "client_id" });
    const otherRedirect = await authorize(
      t.base,
      web,
      authParams(t.base, clientId, challenge, { redirect_uri: "https://evil.example/cb" }),
    );
    expect(otherRedirect.status).toBe(400);
    expect(otherRedirect.body.error).toMatchObject({ field: "redirect_uri" });
    const back = async (over: Record<string, string | undefined>, error: string) => {
      const r = await authorize(t.base, web, authParams(t.base, clientId, challenge, over));
      expect(r.status).toBe(302);
      const u = new URL(r.location!);
      expect(u.origin + u.pathname).toBe(REDIRECT);
      expect(u.searchParams.get("error")).toBe(error);
      expect(u.searchParams.get("state")).toBe("st-123");
    };
    await back({ scope: "clips.read admin" }, "invalid_scope");
    await back({ code_challenge_method: undefined }, "invalid_request");
    await back({ code_challenge_method: "plain" }, "invalid_request");
    await back({ resource: "https://elsewhere.example/mcp" }, "invalid_target");
    await back({ response_type: "token" }, "unsupported_response_type");
    const denied = await decide(web, authParams(t.base, clientId, challenge), "deny");
    expect(denied.searchParams.get("error")).toBe("access_denied");
    expect(denied.searchParams.get("state")).toBe("st-123");
    expect(denied.searchParams.get("code")).toBeNull();
  });

  it("refuses a wrong verifier, redirect_uri or resource, an expired code, and a code used twice", async () => {
    const c = await codeFor(t.base, web, clientId);
    const refused = async (r: Awaited<ReturnType<typeof exchange>>, error: string, field: string) => {
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body).toMatchObject({ error, field });
      expect(r.headers.get("cache-control")).toBe("no-store");
    };
    await refused(await exchange(t.base, clientId, c.code, pkcePair().verifier), "invalid_grant", "code_verifier");
    await refused(
      await exchange(t.base, clientId, c.code, c.verifier, { redirect_uri: "http://127.0.0.1:8765/other" }),
      "invalid_grant",
      "redirect_uri",
    );
    await refused(
      await exchange(t.base, clientId, c.code, c.verifier, { resource: "https://elsewhere.example/mcp" }),
      "invalid_target",
      "resource",
    );
    const first = await exchange(t.base, clientId, c.code, c.verifier);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "clips.read clips.write" });
    expect(first.body.access_token).toMatch(/^clipd_at_/);
    expect((await mcpPost(t.base, first.body.access_token)).status).toBe(200);
    // The same code again: refused, and what it gave is revoked (RFC 6749 section 4.1.2).
    await refused(await exchange(t.base, clientId, c.code, c.verifier), "invalid_grant", "code");
    expect((await mcpPost(t.base, first.body.access_token)).status).toBe(401);

    const late = await codeFor(t.base, web, clientId);
    await t.app.db.query(`update oauth_codes set expires_at = now() - interval '1 second' where used_at is null`);
    await refused(await exchange(t.base, clientId, late.code, late.verifier), "invalid_grant", "code");
    const other = await register(t.base, { client_name: "Other", redirect_uris: [REDIRECT] });
    const mine = await codeFor(t.base, web, clientId);
    await refused(await exchange(t.base, other.body.client_id, mine.code, mine.verifier), "invalid_grant", "client_id");
    const unknown = await exchange(t.base, "clipd_client_nope", mine.code, mine.verifier);
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ error: "invalid_client", field: "client_id" });
  });

  it("takes the token at /mcp only, with the scopes allowed; rotates refresh tokens and revokes on reuse", async () => {
    const c = await codeFor(t.base, web, clientId, { scope: "clips.read" });
    const tokens = (await exchange(t.base, clientId, c.code, c.verifier)).body;
    const client = await mcpClient(t.base, tokens.access_token);
    const names = (await client.listTools()).tools.map((x) => x.name);
    expect(names).toContain("list_episodes");
    expect(names).not.toContain("create_episode");
    expect((await client.callTool({ name: "list_episodes", arguments: {} })).isError).toBeFalsy();
    // The SDK checks the answer against get_me's output schema: the connection's pseudo key id passes it.
    const me = await client.callTool({ name: "get_me", arguments: {} });
    expect(me.isError, JSON.stringify(me.content)).toBeFalsy();
    expect((me.structuredContent as any).key).toMatchObject({ id: expect.stringMatching(/^oauth:[0-9a-f-]{36}$/) });
    await client.close();
    // Its audience is /mcp: the REST API refuses it.
    const rest = await t.call(tokens.access_token, "GET", "/api/v1/me");
    expect(rest.status).toBe(401);
    expect(rest.body.error).toMatchObject({ code: "unauthorized", reason: "audience" });

    const refresh = (rt: string) =>
      form(t.base, "/oauth/token", { grant_type: "refresh_token", client_id: clientId, refresh_token: rt });
    const second = await refresh(tokens.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(tokens.refresh_token);
    expect((await mcpPost(t.base, second.body.access_token)).status).toBe(200);
    // The spent refresh token again: refused, and the whole grant with it.
    const reused = await refresh(tokens.refresh_token);
    expect(reused.status).toBe(400);
    expect(reused.body).toMatchObject({ error: "invalid_grant", field: "refresh_token" });
    expect((await mcpPost(t.base, second.body.access_token)).status).toBe(401);
    expect((await refresh(second.body.refresh_token)).status).toBe(400);
    const listed = (await web.call("GET", "/api/v1/oauth/grants")).body.grants;
    expect(listed.find((g: any) => g.scopes.join() === "clips.read")).toMatchObject({
      status: "revoked",
      revoked_reason: "refresh_reuse",
      client_name: "Test Chat",
    });
  });

  it("revokes an access token alone, a refresh token with its grant, and a grant from the Keys page", async () => {
    const one = await codeFor(t.base, web, clientId);
    const a = (await exchange(t.base, clientId, one.code, one.verifier)).body;
    expect((await form(t.base, "/oauth/revoke", { client_id: clientId, token: a.access_token })).status).toBe(200);
    expect((await mcpPost(t.base, a.access_token)).status).toBe(401);
    const fresh = await form(t.base, "/oauth/token", {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: a.refresh_token,
    });
    expect(fresh.status).toBe(200);
    expect((await form(t.base, "/oauth/revoke", { client_id: clientId, token: fresh.body.refresh_token })).status).toBe(
      200,
    );
    expect((await mcpPost(t.base, fresh.body.access_token)).status).toBe(401);
    // Unknown tokens are answered alike (RFC 7009 section 2.2).
    expect((await form(t.base, "/oauth/revoke", { client_id: clientId, token: "nothing" })).status).toBe(200);

    const two = await codeFor(t.base, web, clientId);
    const b = (await exchange(t.base, clientId, two.code, two.verifier)).body;
    const grants = (await web.call("GET", "/api/v1/oauth/grants")).body.grants;
    const live = grants.find((g: any) => g.status === "active");
    expect(live).toMatchObject({ client_name: "Test Chat", redirect_host: "127.0.0.1:8765" });
    expect(live.tokens.map((x: any) => x.kind).sort()).toEqual(["access", "refresh"]);
    expect((await web.call("DELETE", `/api/v1/oauth/grants/${live.id}`)).status).toBe(200);
    expect((await mcpPost(t.base, b.access_token)).status).toBe(401);
    const stranger = new WebClient(t.base);
    await stranger.signUp();
    expect((await stranger.call("DELETE", `/api/v1/oauth/grants/${live.id}`)).status).toBe(404);
  });

  it("limits registrations per address", async () => {
    let last = 0;
    for (let i = 0; i < 25 && last !== 429; i++) last = (await register(t.base)).status;
    expect(last).toBe(429);
    const r = await register(t.base);
    expect(r.body).toMatchObject({ error: "slow_down", field: "address" });
  });
});

describe("OAuth's URLs with server.public_url set", () => {
  const PUBLIC = "https://clips.example.com";
  let t: ApiServer;
  beforeAll(async () => {
    t = await openApiServer("pglite", { server: { public_url: PUBLIC } });
  }, 60_000);
  afterAll(() => t?.close());

  it("makes every URL from server.public_url, never from the Host header, and binds tokens to its /mcp", async () => {
    const forged = { headers: { host: "evil.example" } };
    const prm = await (await fetch(`${t.base}/.well-known/oauth-protected-resource/mcp`, forged)).json();
    expect(prm).toMatchObject({ resource: `${PUBLIC}/mcp`, authorization_servers: [PUBLIC] });
    const as = await (await fetch(`${t.base}/.well-known/oauth-authorization-server`, forged)).json();
    expect(as).toMatchObject({ issuer: PUBLIC, token_endpoint: `${PUBLIC}/oauth/token` });
    const bare = await mcpPost(t.base, undefined);
    expect(bare.headers.get("www-authenticate")).toContain(
      `resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/mcp"`,
    );

    const clientId = (await register(t.base)).body.client_id;
    const { verifier, challenge } = pkcePair();
    // The request's own origin is not this server's resource once public_url says otherwise.
    const local = await authorize(t.base, undefined, authParams(t.base, clientId, challenge));
    expect(new URL(local.location!).searchParams.get("error")).toBe("invalid_target");
    const params = authParams(t.base, clientId, challenge, { resource: `${PUBLIC}/mcp` });
    expect((await authorize(t.base, undefined, params)).location).toMatch(/^\/signin\?next=/);
    // Allowed by an account (the consent page's own call, made here on the service).
    const { accountId } = await t.account();
    const oauth = t.app.container.resolve(OAuthService);
    const check = await oauth.checkAuthorize(params, `${PUBLIC}/mcp`);
    if (!("ok" in check)) throw new Error(JSON.stringify(check));
    const code = await oauth.issueCode(accountId, check.ok);
    const tokens = await exchange(t.base, clientId, code, verifier, { resource: `${PUBLIC}/mcp` });
    expect(tokens.status).toBe(200);
    expect((await mcpPost(t.base, tokens.body.access_token)).status).toBe(200);
  });
});
