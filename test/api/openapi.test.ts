// The OpenAPI document is generated from the registry and lints clean with Redocly CLI.
import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { repoRoot } from "../helpers/cli.js";

const run = promisify(execFile);

describe("OpenAPI 3.1 document", () => {
  let s: ApiServer;
  let doc: any;
  beforeAll(async () => {
    s = await openApiServer("pglite");
    doc = await (await fetch(`${s.base}/openapi.json`)).json();
  });
  afterAll(() => s?.close());

  it("covers every account API path with its scope, schemas and errors", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    const paths = Object.keys(doc.paths);
    for (const p of ["/api/v1/me", "/api/v1/episodes", "/api/v1/episodes/{id}", "/api/v1/episodes/{id}/uploaded", "/api/v1/episodes/{id}/clips", "/api/v1/episodes/{id}/search", "/api/v1/jobs/{id}", "/api/v1/clips/{id}", "/api/v1/clips/{id}/captions", "/api/v1/styles", "/api/v1/transcripts", "/api/v1/transcripts/{id}"]) {
      expect(paths).toContain(p);
    }
    const post = doc.paths["/api/v1/episodes"].post;
    expect(post.security).toEqual([{ bearer: ["clips.write"] }]);
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(["202", "400", "401", "402", "403", "409", "422", "429"]));
    expect(post.requestBody.content["application/json"].schema.additionalProperties).toBe(false);
  });

  it("lints clean with Redocly CLI", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-openapi-"));
    const file = path.join(dir, "openapi.json");
    await writeFile(file, JSON.stringify(doc));
    const cli = path.join(repoRoot, "node_modules", "@redocly", "cli", "bin", "cli.js");
    const res = await run(process.execPath, [cli, "lint", file, "--format=json"], {
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      maxBuffer: 16 << 20,
    }).catch((err) => err);
    const report = JSON.parse(res.stdout);
    const problems = report.problems.map((p: any) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);
    expect(problems).toEqual([]);
  }, 120_000);
});
