// The config table in docs/configuration.md is generated from config/schema.ts (the one place
// keys, defaults and meanings are written). This test regenerates it and fails when the doc drifts
// from `clipd config describe --markdown`; CLIPD_UPDATE_DOCS=1 rewrites it.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { configMarkdown, configRows, fillConfigTable } from "../../daemon/cli/config-doc.js";
import { runClipd } from "../helpers/cli.js";

const root = path.resolve(import.meta.dirname, "../..");
const doc = path.join(root, "docs/configuration.md");
const baseEnv = () => ({ ...process.env, CLIPD_DATA_DIR: "", DATABASE_URL: "", CLIPD_CONFIG: "" });

describe("docs/configuration.md", () => {
  it("carries the table `clipd config describe --markdown` prints", async () => {
    const text = readFileSync(doc, "utf8");
    expect(text).toContain("<!-- config -->\n");
    const filled = fillConfigTable(text);
    if (filled !== text && process.env.CLIPD_UPDATE_DOCS === "1") writeFileSync(doc, filled);
    else
      expect(
        text,
        "docs/configuration.md drifted from config/schema.ts; run CLIPD_UPDATE_DOCS=1 " +
          "npx vitest run test/unit/config-doc.test.ts",
      ).toBe(filled);
    // The built command prints the same table (dist/ is built before the tests).
    const cli = await runClipd(["config", "describe", "--markdown"], baseEnv());
    expect(cli.code).toBe(0);
    expect(cli.output).toBe(configMarkdown());
  });
});

describe("clipd config describe", () => {
  it("lists every key with type, default, env variable and meaning", () => {
    const rows = new Map(configRows().map((r) => [r.key, r]));
    expect(rows.get("server.port")).toEqual({
      key: "server.port",
      type: "integer (0–65535)",
      default: "`8080`",
      env: "PORT",
      description: expect.stringMatching(/port/),
    });
    expect(rows.get("watch.folders[].pipeline")?.default).toBe("required");
    expect(rows.get("llm.retries")?.default).toBe("openai.retries, else 2");
    expect(rows.has("server")).toBe(false); // blocks are walked into, not listed
    expect(configMarkdown()).toMatch(/^\| key \| type \| default \| env \| meaning \|\n/);
  });

  it("never prints a configured secret, as text or markdown", async () => {
    const secrets = {
      OPENAI_API_KEY: "sk-verysecret",
      DATABASE_URL: "postgres://u:hunter2@h/d",
      CLIPD_OPS_TOKEN: "ops-verysecret",
      LLM_API_KEY: "llm-verysecret",
    };
    for (const args of [
      ["config", "describe"],
      ["config", "describe", "--markdown"],
    ]) {
      const r = await runClipd(args, { ...baseEnv(), ...secrets });
      expect(r.code).toBe(0);
      expect(r.output).toMatch(/server\.ops_token/);
      expect(r.output).not.toMatch(/verysecret|hunter2/);
    }
  });
});
