// The MCP tool server's door and its tool list, with the official SDK client against a real server on
// loopback: the tools are the registry's account operations and nothing else, each described from its
// operation; keys are judged as on the HTTP API (free and missing keys refused at the door, scopes per
// tool with the API's code, test keys answer sample data with livemode false); arguments are
// validated by the operation, naming the field.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../facade/app.js";
import { NEXT_STEP } from "../../facade/mcp/next-steps.js";
import { argName, isToolOperation, toolName } from "../../facade/mcp/tools.js";
import { modelWords } from "../../facade/mcp/words.js";
import { sampleIds } from "../../facade/testmode.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { repoRoot } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";
import { mcpClient, ok, refusal } from "../helpers/mcp.js";

/** The tools of the published service description (the account API's 17 endpoints). */
const PUBLISHED = [
  "get_me",
  "list_episodes",
  "create_episode",
  "get_episode",
  "episode_uploaded",
  "export_clips",
  "search_episode",
  "get_job",
  "restyle_clip",
  "clip_captions",
  "list_styles",
  "create_transcript",
  "get_transcript",
  "list_webhooks",
  "create_webhook",
  "delete_webhook",
  "test_webhook",
];

describe("MCP tool server: tools and keys", () => {
  let s: ApiServer;
  let acc: { accountId: string; live: string; test: string };
  beforeAll(async () => {
    s = await openApiServer("pglite");
    acc = await s.account({ creditCents: 1000 });
  }, 120_000);
  afterAll(() => s?.close());

  it("lists exactly the registry's account operations, described from each operation", async () => {
    const client = await mcpClient(s.base, acc.live);
    const { tools } = await client.listTools();
    const accountOps = OPERATIONS.filter(isToolOperation);
    expect(tools.map((t) => t.name).sort()).toEqual(accountOps.map(toolName).sort());
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(PUBLISHED));
    // Ops, free and signed-file operations are not tools.
    for (const id of [
      "health",
      "getRun",
      "startRun",
      "adminCommand",
      "putUpload",
      "getFile",
      "createFreeTranscription",
      "createFreeKey",
    ]) {
      expect(tools.map((t) => t.name)).not.toContain(toolName(OPERATIONS.find((o) => o.id === id)!));
    }
    expect(Object.keys(NEXT_STEP).sort()).toEqual(tools.map((t) => t.name).sort());
    const documented = [
      ...readFileSync(`${repoRoot}/docs/mcp.md`, "utf8").matchAll(/^\| `(\w+)` \| (GET|POST|PUT|PATCH|DELETE) /gm),
    ].map((m) => m[1]);
    expect(documented.sort(), "docs/mcp.md's tool table").toEqual(tools.map((t) => t.name).sort());
    const words = modelWords(OPERATIONS.filter(isToolOperation));
    for (const op of accountOps) {
      const tool = tools.find((t) => t.name === toolName(op))!;
      expect(tool.description).toContain(op.scope ? `"${op.scope}" scope` : "Any key");
      // The next step in the model's words: a route it names reads as its tool.
      expect(tool.description).toContain(`Next: ${words.text(NEXT_STEP[tool.name]!)}`);
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      expect(tool.annotations).toMatchObject({ readOnlyHint: op.method === "GET" });
      // Deletes always destroy; what else does is checked call by call in mcp-annotations.test.ts.
      if (op.method === "DELETE")
        expect(tool.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
      const props = Object.keys(tool.inputSchema.properties ?? {});
      // No tool takes a bare id: each names what it identifies.
      expect(props, tool.name).not.toContain("id");
      expect(props).toEqual(expect.arrayContaining(Object.keys(op.params ?? {}).map((p) => argName(op, p))));
      expect(props.includes("idempotency_key")).toBe(Boolean(op.idempotent));
    }
    // A model calls tools: no description, the tool's or an argument's, names an HTTP route.
    const route = /\b(GET|POST|PUT|PATCH|DELETE) \/|\/api\/v1\/|HTTP:/;
    for (const tool of tools) {
      const descriptions: string[] = [];
      const walk = (v: unknown, key: string) => {
        if (typeof v === "string" && key === "description") descriptions.push(v);
        else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k);
      };
      walk(tool, "");
      for (const d of descriptions) expect(d, tool.name).not.toMatch(route);
    }
    expect(JSON.stringify(tools.find((t) => t.name === "export_clips")!.inputSchema)).toContain("list_brand_kits");
    // The OpenAPI document comes from the same list: each tool is one of its operations, schema for schema.
    const openapi = await (await fetch(`${s.base}/openapi.json`)).json();
    for (const op of accountOps) {
      const doc = openapi.paths[op.path]?.[op.method.toLowerCase()];
      // The wait tools are the tool server's own (a model cannot sleep between polls): not HTTP.
      if (op.surfaces?.length === 1 && op.surfaces[0] === "chat") {
        expect(doc, toolName(op)).toBeUndefined();
        continue;
      }
      expect(doc?.operationId, toolName(op)).toBe(op.id);
      // The body as JSON (a TypeBox schema's own symbols never reach the document).
      if (op.body)
        expect(doc.requestBody.content["application/json"].schema).toEqual(JSON.parse(JSON.stringify(op.body)));
    }
    const create = tools.find((t) => t.name === "create_episode")!;
    expect(Object.keys(create.inputSchema.properties!)).toEqual(
      expect.arrayContaining(["source_url", "file_name", "name", "target_seconds", "idempotency_key"]),
    );
    expect(create.description).toMatch(/without source_url the answer carries upload .*PUT/);
    expect(tools.find((t) => t.name === "export_clips")!.description).toMatch(/wait_for_job .* download_url/);
    expect(tools.find((t) => t.name === "clip_captions")!.inputSchema).toMatchObject({
      required: ["clip_id"],
      properties: { clip_id: { format: "uuid" }, limit: {} },
    });
    await client.close();
  });

  it("refuses a missing, unknown or free key at the door with the API's 401, and answers 405 to GET", async () => {
    for (const auth of [undefined, "Bearer svc_live_nope", "Bearer svc_free_0123456789abcdef"]) {
      const res = await fetch(`${s.base}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(auth ? { authorization: auth } : {}),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(res.status, auth).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expect(res.headers.get("ratelimit-limit")).toBeTruthy();
      expect((await res.json()).error.code).toBe("unauthorized");
    }
    await expect(mcpClient(s.base, "svc_free_0123456789abcdef")).rejects.toThrow();
    const get = await fetch(`${s.base}/mcp`, {
      headers: { accept: "text/event-stream", authorization: `Bearer ${acc.live}` },
    });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });

  it("refuses a read-only key on a write tool with the HTTP API's code, and lets it read", async () => {
    const ro = await s.account({ creditCents: 1000, scopes: ["clips.read"] });
    const client = await mcpClient(s.base, ro.live);
    const viaTool = refusal(await client.callTool({ name: "create_episode", arguments: { file_name: "a.mp3" } }));
    const viaHttp = await s.call(ro.live, "POST", "/api/v1/episodes", { file_name: "a.mp3" });
    expect(viaHttp.status).toBe(403);
    expect(viaTool).toEqual(viaHttp.body.error);
    expect(
      refusal(await client.callTool({ name: "create_transcript", arguments: { url: "https://example.com/a.mp3" } }))
        .code,
    ).toBe("forbidden");
    expect(ok(await client.callTool({ name: "list_styles", arguments: {} })).styles.length).toBeGreaterThan(0);
    // tools/list shows a read-only key only what it may call.
    const shown = (await client.listTools()).tools.map((t) => t.name).sort();
    const readable = OPERATIONS.filter((op) => isToolOperation(op) && (op.scope === null || op.scope === "clips.read"));
    expect(shown).toEqual(readable.map(toolName).sort());
    expect(shown).toContain("wait_for_job");
    expect(shown).not.toContain("create_episode");
    await client.close();
  });

  it("counts tool calls in the key's own rate-limit bucket, with its HTTP calls", async () => {
    const a = await s.account({ creditCents: 0 });
    const client = await mcpClient(s.base, a.live);
    const remaining = async () => {
      const h = (await s.call(a.live, "GET", "/api/v1/me")).headers;
      return { left: Number(h.get("ratelimit-remaining")), reset: Number(h.get("ratelimit-reset")) };
    };
    // Fixed windows: measure again if a window ended between the two HTTP calls.
    await waitFor(
      async () => {
        const before = await remaining();
        ok(await client.callTool({ name: "get_me", arguments: {} }));
        ok(await client.callTool({ name: "list_styles", arguments: {} }));
        const after = await remaining();
        return after.reset <= before.reset && after.left === before.left - 3;
      },
      { what: "two tool calls between two HTTP calls in one window", timeoutMs: 30_000 },
    );
    await client.close();
  });

  it("keeps the plan's API episodes for API calls: an episode from a chat needs credit", async () => {
    const a = await s.account({ plan: true, creditCents: 0 });
    const client = await mcpClient(s.base, a.live);
    const viaTool = await client.callTool({ name: "create_episode", arguments: { file_name: "talk.mp3" } });
    expect(refusal(viaTool)).toMatchObject({
      code: "credit_required",
      credit_cents: 0,
      needed_cents: expect.any(Number),
      message: expect.stringMatching(/chat/),
    });
    expect(viaTool._meta).toMatchObject({ "clipd/status": 402 });
    const viaHttp = await s.call(a.live, "POST", "/api/v1/episodes", { file_name: "talk.mp3" });
    expect(viaHttp.status).toBe(202);
    // Nothing was made for the refused call.
    expect(
      Number(
        (await s.app.db.query(`select count(*)::int as n from episodes where account_id = $1`, [a.accountId])).rows[0]
          .n,
      ),
    ).toBe(1);
    await client.close();
  });

  it("names the field of an invalid argument, as the API does", async () => {
    const client = await mcpClient(s.base, acc.live);
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["create_episode", { file_name: "a.mp3", target_seconds: 5 }, "target_seconds"],
      ["create_episode", { file_name: "a.mp3", colour: "red" }, "colour"],
      ["create_episode", { source_url: "http://example.com/a.mp3" }, "source_url"],
      ["export_clips", { episode_id: sampleIds().episode }, "clips"],
      ["clip_captions", { clip_id: sampleIds().clips[0], limit: 0 }, "limit"],
      ["get_episode", {}, "episode_id"],
      ["get_episode", { id: sampleIds().episode }, "episode_id"],
      ["get_job", { job_id: sampleIds().jobs[0], extra: 1 }, "extra"],
      ["create_episode", { file_name: "a.mp3", idempotency_key: 7 }, "idempotency_key"],
    ];
    for (const [name, args, field] of cases) {
      const r = await client.callTool({ name, arguments: args });
      // The text a model reads names the tool's argument, never a request's body, query or path.
      const text = String((r.content as Array<{ text: string }>)[0]!.text);
      expect(text, name).not.toMatch(/\b(body|query|path) field\b/);
      expect(text, name).toContain(`argument \\"${field}\\"`);
      const e = refusal(r);
      // A link its schema refuses is invalid_url, as over HTTP; every other fault is invalid_request.
      expect(e, `${name} ${JSON.stringify(args)}`).toMatchObject({
        code: field === "source_url" ? "invalid_url" : "invalid_request",
        field,
      });
      expect(e.message).toContain(field);
    }
    await client.close();
  });

  it("gives a test key the sample data with livemode false, tools and resources alike", async () => {
    const client = await mcpClient(s.base, acc.test);
    const created = ok(await client.callTool({ name: "create_episode", arguments: { file_name: "talk.mp4" } }));
    expect(created).toMatchObject({ livemode: false, upload: { method: "PUT" } });
    const ep = ok(await client.callTool({ name: "get_episode", arguments: { episode_id: created.episode_id } }));
    expect(ep).toMatchObject({ episode_id: sampleIds().episode, livemode: false });
    expect(ok(await client.callTool({ name: "get_me", arguments: {} })).key.mode).toBe("test");
    const tr = ok(
      await client.callTool({ name: "get_transcript", arguments: { transcript_id: sampleIds().transcript } }),
    );
    expect(tr).toMatchObject({ status: "completed", livemode: false });
    const vtt = await client.readResource({ uri: `clipd://transcripts/${sampleIds().transcript}.vtt` });
    expect(vtt.contents[0]).toMatchObject({ mimeType: "text/vtt", text: expect.stringMatching(/^WEBVTT/) });
    const styles = await client.readResource({ uri: "clipd://styles" });
    expect(JSON.parse(String(styles.contents[0]!.text)).styles.length).toBeGreaterThan(0);
    const missing = await client.readResource({ uri: `clipd://transcripts/${crypto.randomUUID()}.vtt` }).then(
      () => undefined,
      (err: Error & { code?: number }) => err,
    );
    expect(missing?.code).toBe(-32002);
    // The SDK's prefix once, then the envelope's code and message (it was printed twice).
    expect(missing?.message).toMatch(/^MCP error -32002: not_found: transcript /);
    expect(missing?.message.match(/MCP error/g)).toHaveLength(1);
    await client.close();
  });
});
