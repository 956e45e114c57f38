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
    for (const p of [
      "/api/v1/me",
      "/api/v1/episodes",
      "/api/v1/episodes/{id}",
      "/api/v1/episodes/{id}/uploaded",
      "/api/v1/episodes/{id}/clips",
      "/api/v1/episodes/{id}/search",
      "/api/v1/jobs/{id}",
      "/api/v1/clips/{id}",
      "/api/v1/clips/{id}/captions",
      "/api/v1/styles",
      "/api/v1/transcripts",
      "/api/v1/transcripts/{id}",
    ]) {
      expect(paths).toContain(p);
    }
    const post = doc.paths["/api/v1/episodes"].post;
    expect(post.security).toEqual([{ bearer: ["clips.write"] }]);
    expect(Object.keys(post.responses)).toEqual(
      expect.arrayContaining(["202", "400", "401", "402", "403", "409", "422", "429"]),
    );
    expect(post.requestBody.content["application/json"].schema.additionalProperties).toBe(false);
  });

  it("describes the Idempotency-Key header on exactly the operations that take it", () => {
    const ops = Object.values(doc.paths).flatMap((item: any) => Object.values(item)) as any[];
    const takes = (op: any) =>
      (op.parameters ?? []).some((p: any) => p.$ref === "#/components/parameters/IdempotencyKey");
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      schema: { type: "string", minLength: 1, maxLength: 255 },
    });
    const idempotent = ops.filter(takes).map((op) => op.operationId);
    // The seven of the published list, and the webhook, caption-edit, brand kit and cancel operations
    // clipd adds beyond it.
    expect(idempotent.sort()).toEqual([
      "cancelEpisode",
      "createBrandKit",
      "createEpisode",
      "createTranscript",
      "createWebhook",
      "editClipCaptions",
      "episodeUploaded",
      "exportClips",
      "restyleClip",
      "rotateWebhookSecret",
      "searchEpisode",
      "testWebhook",
      "updateBrandKit",
      "updateWebhook",
    ]);
    for (const op of ops.filter(takes))
      expect(Object.keys(op.responses), op.operationId).toEqual(expect.arrayContaining(["400", "409", "422"]));
    expect(takes(doc.paths["/api/v1/episodes"].get)).toBe(false);
    expect(takes(doc.paths["/api/v1/transcribe"].post)).toBe(false);
  });

  it("puts the RateLimit-* headers on every answer of rate-limited operations, and Retry-After on 429", () => {
    for (const name of ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After"])
      expect(doc.components.headers[name].schema.type).toBe("integer");
    for (const [path, item] of Object.entries(doc.paths) as Array<[string, any]>) {
      for (const [method, op] of Object.entries(item) as Array<[string, any]>) {
        const limited = "429" in op.responses;
        for (const [status, r] of Object.entries(op.responses) as Array<[string, any]>) {
          const where = `${method} ${path} ${status}`;
          if (limited)
            expect(Object.keys(r.headers ?? {}), where).toEqual(
              expect.arrayContaining(["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]),
            );
          if (status === "429")
            expect(r.headers["Retry-After"], where).toEqual({ $ref: "#/components/headers/Retry-After" });
        }
      }
    }
    expect(doc.paths["/api/v1/me"].get.responses["200"].headers["RateLimit-Limit"]).toEqual({
      $ref: "#/components/headers/RateLimit-Limit",
    });
    // signed links are not rate limited
    expect(doc.paths["/api/v1/files/{token}"].get.responses["200"].headers).toBeUndefined();
  });

  it("marks the optional request bodies optional and documents 405, 413 and 415", () => {
    expect(doc.paths["/api/v1/episodes"].post.requestBody.required).toBe(false);
    expect(doc.paths["/api/v1/episodes/{id}/uploaded"].post.requestBody.required).toBe(false);
    expect(doc.paths["/api/v1/webhooks/{id}/test"].post.requestBody.required).toBe(false);
    expect(doc.paths["/api/v1/episodes/{id}/clips"].post.requestBody.required).toBe(true);
    expect(doc.paths["/api/v1/transcripts"].post.requestBody.required).toBe(true);
    const post = doc.paths["/api/v1/episodes"].post.responses;
    expect(post["413"].description).toMatch(/body_too_large.*max_bytes.*1048576 bytes/);
    expect(post["415"].description).toMatch(/unsupported_media_type.*application\/json/);
    expect(post["405"].headers.Allow).toEqual({ $ref: "#/components/headers/Allow" });
    expect(post["405"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
    // The free API's own 413s keep their codes beside the body limit.
    expect(doc.paths["/api/v1/transcribe"].post.responses["413"].description).toMatch(/too_long.*body_too_large/);
    expect(doc.paths["/api/v1/styles"].get.responses["413"]).toBeUndefined(); // no body, no body limit
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
    const problems = report.problems.map(
      (p: any) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`,
    );
    expect(problems).toEqual([]);
  }, 120_000);
});
