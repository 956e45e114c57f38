// `clipd mcp --stdio` (the built dist/) driven by the official SDK's StdioClientTransport, as Claude
// Desktop or Cursor would start it: relaying to a running clipd's /mcp (CLIPD_URL), and serving on
// its own embedded database when CLIPD_URL is not set. stdout must carry only JSON-RPC, or the
// client's parser fails.
import { readFileSync } from "node:fs";
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
const toolsFor = (scopes: string[]) =>
  OPERATIONS.filter((op) => isToolOperation(op) && (op.scope === null || scopes.includes(op.scope)))
    .map(toolName)
    .sort();

/** docs/mcp.md's Claude Desktop config, as a user copies it: the command, its arguments and environment. */
function documentedConfig(): { command: string; args: string[]; env: Record<string, string> } {
  const doc = readFileSync(path.join(repoRoot, "docs", "mcp.md"), "utf8");
  const block = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('"command"'));
  return JSON.parse(block!).mcpServers.clipd;
}

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
    // tools/list shows what the key's scopes allow (no webhooks or transcripts scope here).
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(toolsFor(["clips.read", "clips.write"]));
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

  it("starts docs/mcp.md's plain SDK client command as written (clipd is not on PATH)", async () => {
    const doc = readFileSync(path.join(repoRoot, "docs", "mcp.md"), "utf8");
    const block = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .find((b) => b.includes("new StdioClientTransport("));
    expect(block).toContain("command: process.execPath,");
    const args = JSON.parse(/args: (\[[^\]]*\])/.exec(block!)![1]!.replaceAll("/opt/clipd", repoRoot)) as string[];
    const acc = await s.account({ creditCents: 0 });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args,
      env: { ...process.env, CLIPD_URL: s.base, CLIPD_API_KEY: acc.live } as Record<string, string>,
      stderr: "pipe",
    });
    const client = new Client({ name: "clipd-docs-example", version: "1.0.0" });
    await client.connect(transport);
    expect(ok(await client.callTool({ name: "get_me", arguments: {} })).key.mode).toBe("live");
    await client.close();
  }, 120_000);

  it("answers a bad key's requests with the server's refusal", async () => {
    await expect(stdioClient({ ...process.env, CLIPD_URL: s.base, CLIPD_API_KEY: "svc_live_unknown" })).rejects.toThrow(
      /401|unauthorized|Unauthorized/,
    );
  }, 60_000);

  it("serves on the embedded database when CLIPD_URL is not set, or relays to the daemon that holds it", async () => {
    // The daemon started later listens on a port of its own choosing (port 0): daemon.json says which.
    const d = await daemonEnv("pglite");
    const made = await runClipd(["account", "create", "--email", "stdio@example.com"], d.env, { timeoutMs: 180_000 });
    expect(made.code, made.output).toBe(0);
    const accountId = JSON.parse(made.output.trim().split("\n").pop()!).account_id;
    const key = await runClipd(
      ["key", "create", "--account", accountId, "--mode", "test", "--scopes", "clips.read,clips.write"],
      d.env,
      { timeoutMs: 180_000 },
    );
    expect(key.code, key.output).toBe(0);
    const testKey = JSON.parse(key.output.trim().split("\n").pop()!).key;
    const { client, stderr } = await stdioClient({ ...d.env, CLIPD_URL: undefined, CLIPD_API_KEY: testKey });
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(toolsFor(["clips.read", "clips.write"]));
    const ep = ok(await client.callTool({ name: "create_episode", arguments: { file_name: "talk.mp4" } }));
    expect(ep).toMatchObject({ livemode: false, upload: { method: "PUT" } });
    await client.close();
    expect(stderr()).not.toContain(testKey);

    const daemon = spawnClipd(["start"], d.env);
    try {
      await daemon.waitFor(/is up: /, 90_000);
      const written = JSON.parse(readFileSync(path.join(d.dataDir, "daemon.json"), "utf8"));
      expect((await fetch(`${written.url}/healthz`)).status).toBe(200);
      const relayed = await stdioClient({ ...d.env, CLIPD_URL: undefined, CLIPD_API_KEY: testKey });
      expect(ok(await relayed.client.callTool({ name: "get_me", arguments: {} })).account.id).toBe(accountId);
      await relayed.client.close();

      // docs/mcp.md's Claude Desktop config exactly as written, its paths made this checkout's: the
      // system node (older than 24) starts bin/clipd.js, which runs itself under the project's Node 24
      // and relays to the daemon that daemon.json names.
      const conf = documentedConfig();
      const made = (v: string) => v.replaceAll("/opt/clipd", repoRoot);
      const asWritten = new StdioClientTransport({
        command: conf.command,
        args: conf.args.map(made),
        env: { ...conf.env, CLIPD_API_KEY: testKey, CLIPD_DATA_DIR: d.dataDir },
        stderr: "pipe",
      });
      let said = "";
      asWritten.stderr?.on("data", (b: Buffer) => (said += b.toString()));
      const desktop = new Client({ name: "claude-desktop-like", version: "1.0.0" });
      // bin/clipd.js builds first when the sources are newer than dist/ (minutes on a busy machine).
      await desktop.connect(asWritten, { timeout: 300_000 }).catch((err: Error) => {
        throw new Error(`${err.message}; its stderr: ${said}`);
      });
      expect(ok(await desktop.callTool({ name: "get_me", arguments: {} })).account.id).toBe(accountId);
      await desktop.close();
    } finally {
      daemon.kill("SIGKILL");
      await daemon.exited;
    }
  }, 600_000);
});
