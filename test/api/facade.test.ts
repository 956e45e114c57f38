// The facade over real HTTP on loopback.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestApp, type TestApp } from "../helpers/app.js";
import { opsAuth } from "../helpers/ops.js";

describe("facade", () => {
  let t: TestApp;
  let base: string;
  let ops: { authorization: string };
  beforeAll(async () => {
    t = await openTestApp("pglite", { roles: ["work", "serve"] });
    base = t.roles.url!;
    ops = await opsAuth(t);
  });
  afterAll(() => t?.close());

  it("GET /healthz reports the database, the queue and the live workers", async () => {
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.status).toBe("ok");
    expect(body.database).toMatchObject({ ok: true, kind: "pglite" });
    expect(body.queue.ok).toBe(true);
    expect(body.workers.count).toBe(1);
  });

  it("starts a run through the ops route and shows its state, step and progress", async () => {
    const res = await fetch(`${base}/api/v1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json", ...ops },
      body: JSON.stringify({ pipeline: "t-chain", input: { total: 0 } }),
    });
    expect(res.status).toBe(202);
    const { run_id } = await res.json();
    const done = await t.app.runner.waitForRun(run_id, { timeoutMs: 20_000 });
    expect(done.state).toBe("succeeded");
    const view = await (await fetch(`${base}/api/v1/runs/${run_id}`, { headers: ops })).json();
    expect(view).toMatchObject({ run_id, pipeline: "t-chain", state: "succeeded", progress: 100, step_count: 3 });
    expect(view.steps).toHaveLength(3);
  });

  it("refuses bad input with the error envelope naming the field", async () => {
    const bad = await fetch(`${base}/api/v1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json", ...ops },
      body: JSON.stringify({ pipeline: "t-chain", extra: 1 }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: { code: "invalid_request", message: expect.stringMatching(/"extra" is not allowed/), field: "extra" },
    });
    const unknown = await fetch(`${base}/api/v1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json", ...ops },
      body: JSON.stringify({ pipeline: "nope" }),
    });
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error.code).toBe("unknown_pipeline");
    const notJson = await fetch(`${base}/api/v1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json", ...ops },
      body: "{",
    });
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.code).toBe("invalid_json");
    const missing = await fetch(`${base}/api/v1/runs/6f1c1f4e-1111-4222-8333-444455556666`, { headers: ops });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatchObject({ code: "not_found", field: "id" });
    const badId = await fetch(`${base}/api/v1/runs/not-a-uuid`, { headers: ops });
    expect(badId.status).toBe(404);
    // An unknown API path answers the JSON 404 (other paths belong to the website).
    const nowhere = await fetch(`${base}/api/v1/nowhere`);
    expect(nowhere.status).toBe(404);
    expect((await nowhere.json()).error.code).toBe("not_found");
  });

  it("serves an OpenAPI 3.1 document made from the operation registry", async () => {
    const doc = await (await fetch(`${base}/openapi.json`)).json();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.paths["/healthz"].get.operationId).toBe("health");
    expect(doc.paths["/api/v1/runs/{id}"]).toBeUndefined(); // ops routes stay out of the public document
  });
});
