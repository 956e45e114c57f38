// `clipd mcp --stdio` (the built dist/) driven by the official SDK's StdioClientTransport, as Claude
// Desktop or Cursor would start it: relaying to a running clipd's /mcp (CLIPD_URL), and serving on
// its own embedded database when CLIPD_URL is not set. stdout must carry only JSON-RPC, or the
// client's parser fails.
import net from "node:net";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../facade/app.js";
import { isToolOperation, toolName } from "../../facade/mcp/tools.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { repoRoot, runClipd, spawnClipd } from "../helpers/cli.js";
import { daemonEnv } from "../helpers/daemon-config.js";
import { ok, refusal } from "../helpers/mcp.js";

const MAIN = path.join(repoRoot, "dist", "daemon", "boot", "main.js");
const TOOLS = OPERATIONS.filter(isToolOperation).map(toolName).sort();

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

async function stdioClient(
  given: Record<string, string | undefined>,
): Promise<{ client: Client; stderr: () => string }> {
  const env = Object.fromEntries(Object.entries(given).filter((e): e is [string, string] => e[1] !== undefined));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, "mcp", "--stdio"],
    env,
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: "clipd-stdio-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => err };
}

describe("clipd mcp --stdio", () => {
  let s: ApiServer;
  beforeAll(async () => {
    s = await openApiServer("pglite");
  }, 120_000);
  afterAll(() => s?.close());

  it("relays to a running clipd with CLIPD_URL and CLIPD_API_KEY: same tools, same answers and refusals", async () => {
    const acc = await s.account({ creditCents: 1000, scopes: ["clips.read", "clips.write"] });
    const { client } = await stdioClient({ ...process.env, CLIPD_URL: s.base, CLIPD_API_KEY: acc.live });
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOLS);
    expect(ok(await client.callTool({ name: "get_me", arguments: {} })).key.mode).toBe("live");
    const made = ok(await client.callTool({ name: "create_episode", arguments: { file_name: "talk.mp3" } }));
    expect(made).toMatchObject({ status: "awaiting_upload", upload: { method: "PUT" }, livemode: true });
    const seen = ok(await client.callTool({ name: "get_episode", arguments: { episode_id: made.episode_id } }));
    expect(seen.episode_id).toBe(made.episode_id);
    expect(refusal(await client.callTool({ name: "list_webhooks", arguments: {} })).code).toBe("forbidden");
    expect(
      JSON.parse(String((await client.readResource({ uri: "clipd://styles" })).contents[0]!.text)).styles.length,
    ).toBeGreaterThan(0);
    await client.close();
  }, 120_000);

  it("answers a bad key's requests with the server's refusal", async () => {
    await expect(stdioClient({ ...process.env, CLIPD_URL: s.base, CLIPD_API_KEY: "svc_live_unknown" })).rejects.toThrow(
      /401|unauthorized|Unauthorized/,
    );
  }, 60_000);

  it("serves on the embedded database when CLIPD_URL is not set, or relays to the daemon that holds it", async () => {
    // The daemon started later must be found at server.port, so it gets a known one.
    const d = await daemonEnv("pglite", { server: { port: await freePort() } });
    const made = await runClipd(["account", "create", "--email", "stdio@example.com"], d.env, { timeoutMs: 60_000 });
    expect(made.code, made.output).toBe(0);
    const accountId = JSON.parse(made.output.trim().split("\n").pop()!).account_id;
    const key = await runClipd(
      ["key", "create", "--account", accountId, "--mode", "test", "--scopes", "clips.read,clips.write"],
      d.env,
      { timeoutMs: 60_000 },
    );
    expect(key.code, key.output).toBe(0);
    const testKey = JSON.parse(key.output.trim().split("\n").pop()!).key;
    const { client, stderr } = await stdioClient({ ...d.env, CLIPD_URL: undefined, CLIPD_API_KEY: testKey });
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const ep = ok(await client.callTool({ name: "create_episode", arguments: { file_name: "talk.mp4" } }));
    expect(ep).toMatchObject({ livemode: false, upload: { method: "PUT" } });
    await client.close();
    expect(stderr()).not.toContain(testKey);

    const daemon = spawnClipd(["start"], d.env);
    try {
      await daemon.waitFor(/is up: /, 90_000);
      const relayed = await stdioClient({ ...d.env, CLIPD_URL: undefined, CLIPD_API_KEY: testKey });
      expect(ok(await relayed.client.callTool({ name: "get_me", arguments: {} })).account.id).toBe(accountId);
      await relayed.client.close();
    } finally {
      daemon.kill("SIGKILL");
      await daemon.exited;
    }
  }, 240_000);
});
