// A chat app's remote MCP connector, end to end: the MCP SDK's own OAuth client (an
// OAuthClientProvider given to StreamableHTTPClientTransport as authProvider) against a real
// `clipd start` on loopback. The SDK discovers the metadata from /mcp's 401, registers itself,
// starts PKCE; Debian's Chromium signs in on the site, sees the client's name and the scopes on the
// consent page and clicks Allow; the browser lands on the connector's loopback callback with the
// code; the SDK exchanges it and calls list_episodes. Then: a refresh rotates the refresh token, a
// revoked access token gets 401 (the SDK refreshes past it), and reusing the old refresh token
// revokes the grant, which the Keys page shows.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { auth, refreshAuthorization, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot, useBrowser, useWebClipd } from "../helpers/browser.js";
import { form, mcpPost } from "../helpers/oauth.js";
import { TEST_PASSWORD, WebClient } from "../helpers/web.js";

/** The connector's side, kept in memory as a chat app would keep it in its store. */
class ConnectorProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Chat Connector Test",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state = () => "connector-state";
  clientInformation = () => this.client;
  saveClientInformation = (c: OAuthClientInformationMixed) => void (this.client = c);
  tokens = () => this.saved;
  saveTokens = (t: OAuthTokens) => void (this.saved = t);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (v: string) => void (this.verifier = v);
  codeVerifier = () => this.verifier;
}

/** The connector's loopback callback: resolves with the query the browser brought. */
function startCallback(): Promise<{ server: Server; url: string; hit: Promise<URLSearchParams> }> {
  let resolve!: (q: URLSearchParams) => void;
  const hit = new Promise<URLSearchParams>((r) => (resolve = r));
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://127.0.0.1");
    if (u.pathname === "/callback") resolve(u.searchParams);
    res.writeHead(200, { "content-type": "text/html" }).end("<h1>Connected; you can close this tab</h1>");
  });
  return new Promise((ok) =>
    server.listen(0, "127.0.0.1", () =>
      ok({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, hit }),
    ),
  );
}

describe("a remote MCP connector through OAuth, consent in a browser", () => {
  const browser = useBrowser();
  const clipd = useWebClipd();
  let callback: Awaited<ReturnType<typeof startCallback>>;
  let context: BrowserContext;
  let page: Page;
  let provider: ConnectorProvider;
  const web = () => new WebClient(clipd().url);
  const email = "connector@example.com";
  const mcpUrl = () => new URL(`${clipd().url}/mcp`);
  const connect = async () => {
    const client = new Client({ name: "chat-app", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    return client;
  };

  beforeAll(async () => {
    callback = await startCallback();
    provider = new ConnectorProvider(callback.url);
    await web().signUp(email, TEST_PASSWORD);
    context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(60_000); // a ceiling on the waits below, not a delay
    page = await context.newPage();
  });
  afterAll(async () => {
    await context?.close();
    await new Promise((r) => callback?.server.close(r));
  });

  it("discovers, registers, signs in and allows in the browser, and calls a tool", async () => {
    const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    await expect(new Client({ name: "chat-app", version: "1.0.0" }).connect(transport)).rejects.toThrow(/Unauthorized/);
    expect(provider.client?.client_id).toMatch(/^clipd_client_/);
    const asked = provider.authorizationUrl!;
    expect(asked.origin + asked.pathname).toBe(`${clipd().url}/oauth/authorize`);
    expect(asked.searchParams.get("code_challenge_method")).toBe("S256");
    expect(asked.searchParams.get("resource")).toBe(`${clipd().url}/mcp`);

    await page.goto(asked.toString());
    await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    const title = page.getByRole("heading", { level: 1, name: "Allow Chat Connector Test to use your clipd account?" });
    await title.waitFor();
    const scopes = page.getByRole("list", { name: "Scopes asked for" });
    for (const s of ["clips.read", "clips.write", "transcripts", "webhooks"])
      await scopes.getByText(s, { exact: true }).waitFor();
    await page.getByText(`you go back to ${new URL(callback.url).host}`).waitFor();
    await screenshot(page, "oauth-consent", page.url(), () => title.waitFor());
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole("button", { name: "Allow" }).click();
    const back = await callback.hit;
    expect(back.get("state")).toBe("connector-state");
    await page.getByRole("heading", { name: "Connected; you can close this tab" }).waitFor();

    await transport.finishAuth(back.get("code")!);
    expect(provider.saved).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
    const client = await connect();
    const r = await client.callTool({ name: "list_episodes", arguments: {} });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    await client.close();
  });

  it("rotates the refresh token, refreshes past a revoked access token, and revokes the grant on reuse", async () => {
    const first = provider.saved!;
    expect(await auth(provider, { serverUrl: mcpUrl() })).toBe("AUTHORIZED");
    const second = provider.saved!;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);

    // Revocation (RFC 7009): the token is refused at once; the SDK refreshes and goes on.
    const clientId = provider.client!.client_id;
    expect((await form(clipd().url, "/oauth/revoke", { client_id: clientId, token: second.access_token })).status).toBe(
      200,
    );
    expect((await mcpPost(clipd().url, second.access_token)).status).toBe(401);
    const client = await connect();
    expect((await client.callTool({ name: "list_episodes", arguments: {} })).isError).toBeFalsy();
    const third = provider.saved!;
    expect(third.refresh_token).not.toBe(second.refresh_token);

    // The first refresh token, spent, used again: refused, and the whole grant is revoked.
    const metadata = (await (await fetch(`${clipd().url}/.well-known/oauth-authorization-server`)).json()) as never;
    await expect(
      refreshAuthorization(clipd().url, {
        metadata,
        clientInformation: provider.client!,
        refreshToken: first.refresh_token!,
        resource: mcpUrl(),
      }),
    ).rejects.toThrow(/already used/);
    expect((await mcpPost(clipd().url, third.access_token)).status).toBe(401);
    await expect(client.callTool({ name: "list_episodes", arguments: {} })).rejects.toThrow(/revoked|Unauthorized/);
    await client.close();

    await page.goto(`${clipd().url}/keys`);
    const row = page.getByRole("region", { name: "Connected apps table" }).getByRole("row", { name: /Chat Connector/ });
    await row.getByText("Revoked: a refresh token was used twice").waitFor();
  });
});
