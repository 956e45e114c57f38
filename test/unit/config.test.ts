import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { configDefaults, ConfigError, envKeys, loadConfig, maskSecrets } from "../../config/loader.js";
import { ConfigSchema } from "../../config/schema.js";
import { FREE_DEFAULTS } from "../../daemon/free/config.js";

async function tmpFile(text: string) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-cfg-"));
  const f = path.join(dir, "c.yaml");
  await writeFile(f, text);
  return f;
}

const errorOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a ConfigError");
};

describe("config", () => {
  it("layers defaults < file < env", async () => {
    const file = await tmpFile("server: { port: 9001 }\nqueue: { concurrency: 3 }\n");
    const cfg = loadConfig({ env: { CLIPD_CONFIG: file, PORT: "9002", CLIPD_DATA_DIR: "/tmp/x" } });
    expect(cfg.server.port).toBe(9002);
    expect(cfg.server.host).toBe("0.0.0.0"); // the rest of the block keeps its defaults
    expect(cfg.queue.concurrency).toBe(3);
    expect(cfg.data_dir).toBe("/tmp/x");
    expect(cfg.database_url).toBe("");
  });

  it("stops on an invalid config with a message naming the key", async () => {
    const file = await tmpFile("queue: { concurrency: 0, heartbeat_seconds: 5 }\nserver: { colour: red }\n");
    const message = errorOf(() => loadConfig({ env: { CLIPD_CONFIG: file } }));
    expect(message).toMatch(/queue\.concurrency: must be >= 1/);
    expect(message).toMatch(/queue\.heartbeat_seconds: must be >= 10/);
    expect(message).toMatch(/server\.colour: unknown key$/m);
    expect(() => loadConfig({ env: { PORT: "eighty" } })).toThrow(/server\.port/);
  });

  it(
    "reports a misspelt key, at the top level and inside a block, with the " + "key it was probably meant to be",
    async () => {
      const file = await tmpFile("sever: { port: 9000 }\nqueue: { concurency: 4 }\n");
      const message = errorOf(() => loadConfig({ env: { CLIPD_CONFIG: file } }));
      expect(message).toMatch(/sever: unknown key \(did you mean server\?\)/);
      expect(message).toMatch(/queue\.concurency: unknown key \(did you mean queue\.concurrency\?\)/);
    },
  );

  it(
    "reads the same env variables as before the schema, an empty one counting " + "as unset except DATABASE_URL",
    async () => {
      expect(
        envKeys()
          .map(([keys, p]) => `${p["x-env"]}=${keys.join(".")}`)
          .sort(),
      ).toEqual(
        [
          "PORT=server.port",
          "DATABASE_URL=database_url",
          "CLIPD_DATA_DIR=data_dir",
          "CLIPD_LOG_LEVEL=log.level",
          "CLIPD_OPS_TOKEN=server.ops_token",
          "CLIPD_PUBLIC_URL=server.public_url",
          "OPENAI_API_KEY=openai.api_key",
          "OPENAI_BASE_URL=openai.base_url",
          "LLM_API_KEY=llm.api_key",
          "LLM_BASE_URL=llm.base_url",
          "LLM_MODEL=llm.model",
          // The website's (issue 14): sign-up, mail and payments.
          "CLIPD_SIGNUP_OPEN=web.signup_open",
          "CLIPD_SMTP_HOST=smtp.host",
          "CLIPD_SMTP_PORT=smtp.port",
          "CLIPD_SMTP_USER=smtp.user",
          "CLIPD_SMTP_PASSWORD=smtp.password",
          "CLIPD_PAYMENTS=payments.provider",
          "STRIPE_SECRET_KEY=payments.stripe_secret_key",
          "STRIPE_WEBHOOK_SECRET=payments.stripe_webhook_secret",
          // Whisper by default (issue 29): the background fetch and its host.
          "CLIPD_AUTO_MODEL=transcribe.auto_model",
          "CLIPD_MODEL_HOST=transcribe.model_host",
          // The tool server's allow-lists (issue 30): Origin and Host beyond the server's own.
          "CLIPD_MCP_ALLOWED_ORIGINS=mcp.allowed_origins",
          "CLIPD_MCP_ALLOWED_HOSTS=mcp.allowed_hosts",
        ].sort(),
      );
      const env = {
        CLIPD_LOG_LEVEL: "debug",
        CLIPD_OPS_TOKEN: "t",
        CLIPD_PUBLIC_URL: "https://x",
        OPENAI_BASE_URL: "http://o",
        LLM_API_KEY: "k",
        LLM_BASE_URL: "http://l",
        LLM_MODEL: "m",
      };
      const cfg = loadConfig({ env });
      expect([
        cfg.log.level,
        cfg.server.ops_token,
        cfg.server.public_url,
        cfg.openai.base_url,
        cfg.llm.api_key,
        cfg.llm.base_url,
        cfg.llm.model,
      ]).toEqual(Object.values(env));
      const file = await tmpFile("database_url: postgres://a@b/c\nserver: { port: 9001 }\ndata_dir: /tmp/y\n");
      const empty = loadConfig({ env: { CLIPD_CONFIG: file, DATABASE_URL: "", PORT: "", CLIPD_DATA_DIR: "" } });
      expect([empty.database_url, empty.server.port, empty.data_dir]).toEqual(["", 9001, "/tmp/y"]);
    },
  );

  it("masks secrets when printed", () => {
    const cfg = loadConfig({
      env: { DATABASE_URL: "postgres://clipd:hunter2@db:5432/clipd", OPENAI_API_KEY: "sk-secret" },
    });
    const shown = JSON.stringify(maskSecrets(cfg));
    expect(shown).not.toMatch(/hunter2|sk-secret/);
    expect(shown).toMatch(/postgres:\/\/clipd:\*\*\*\*@db:5432\/clipd/);
  });
});

describe("config schema", () => {
  // Every leaf key with its dotted path, for the checks below.
  const leaves = (s: Record<string, any>, prefix = ""): Array<[string, Record<string, any>]> =>
    Object.entries(s.properties ?? {}).flatMap(([k, p]: [string, any]) =>
      p.type === "object" && p.properties ? leaves(p, `${prefix}${k}.`) : [[prefix + k, p]],
    );

  it("gives every key a description and a default (or a note of the default decided at run time)", () => {
    for (const [key, p] of leaves(ConfigSchema)) {
      expect(p.description, key).toBeTruthy();
      expect(p.default !== undefined || typeof p["x-default"] === "string", key).toBe(true);
    }
  });

  it(
    "is the only source of defaults: loading with no file and no env gives " +
      "them, and the free API's own table agrees",
    () => {
      const cfg = loadConfig({ env: {} });
      expect({ ...cfg, data_dir: "./data" }).toEqual(configDefaults());
      expect(cfg.data_dir).toBe(path.resolve("./data"));
      expect(cfg.free).toEqual(FREE_DEFAULTS);
    },
  );

  it("masks every key that holds a secret", () => {
    const secretish = leaves(ConfigSchema).filter(
      ([k, p]) => p.type === "string" && /key|secret|token|password|database_url/.test(k.split(".").at(-1)!),
    );
    expect(secretish.length).toBeGreaterThanOrEqual(5);
    const overrides: Record<string, any> = {};
    for (const [k] of secretish) {
      const parts = k.split(".");
      let o = overrides;
      for (const part of parts.slice(0, -1)) o = o[part] ??= {};
      o[parts.at(-1)!] = `leak-${k}`;
    }
    expect(JSON.stringify(maskSecrets(loadConfig({ env: {}, overrides })))).not.toMatch(/leak-/);
  });
});
