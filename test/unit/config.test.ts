import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, maskSecrets } from "../../config/loader.js";

async function tmpFile(text: string) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-cfg-"));
  const f = path.join(dir, "c.yaml");
  await writeFile(f, text);
  return f;
}

describe("config", () => {
  it("layers defaults < file < env", async () => {
    const file = await tmpFile("server: { port: 9001 }\nqueue: { concurrency: 3 }\n");
    const cfg = loadConfig({ env: { CLIPD_CONFIG: file, PORT: "9002", CLIPD_DATA_DIR: "/tmp/x" } });
    expect(cfg.server.port).toBe(9002);
    expect(cfg.queue.concurrency).toBe(3);
    expect(cfg.data_dir).toBe("/tmp/x");
    expect(cfg.database_url).toBe("");
  });

  it("stops on an invalid config with a message naming the key", async () => {
    const file = await tmpFile("queue: { concurrency: 0, heartbeat_seconds: 5 }\nserver: { colour: red }\n");
    expect(() => loadConfig({ env: { CLIPD_CONFIG: file } })).toThrow(ConfigError);
    try {
      loadConfig({ env: { CLIPD_CONFIG: file } });
    } catch (err) {
      expect((err as Error).message).toMatch(/queue\.concurrency: must be >= 1/);
      expect((err as Error).message).toMatch(/queue\.heartbeat_seconds: must be >= 10/);
      expect((err as Error).message).toMatch(/server\.colour: unknown key/);
    }
    expect(() => loadConfig({ env: { PORT: "eighty" } })).toThrow(/server\.port/);
  });

  it("masks secrets when printed", () => {
    const cfg = loadConfig({ env: { DATABASE_URL: "postgres://clipd:hunter2@db:5432/clipd", OPENAI_API_KEY: "sk-secret" } });
    const shown = JSON.stringify(maskSecrets(cfg));
    expect(shown).not.toMatch(/hunter2|sk-secret/);
    expect(shown).toMatch(/postgres:\/\/clipd:\*\*\*\*@db:5432\/clipd/);
  });
});
