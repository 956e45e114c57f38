// The ops routes (admin, runs) never answer without the ops token, loopback or not: a reverse proxy
// on the same host would otherwise expose account, key and credit creation. A server without
// server.ops_token makes a token and keeps it in <data_dir>/ops.token, readable by its owner only.
import { stat } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestApp, type TestApp } from "../helpers/app.js";
import { opsAuth } from "../helpers/ops.js";

const admin = (base: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/api/v1/admin`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ command: "account.create", args: { email: `o${Date.now()}@example.com` } }),
  });

describe("ops routes without server.ops_token", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp("pglite", { roles: ["serve"] });
  });
  afterAll(() => t?.close());

  it("refuse a loopback client with no token or a wrong one, saying where the token is", async () => {
    for (const headers of [{}, { authorization: "Bearer nope" }, { "x-forwarded-for": "127.0.0.1" }]) {
      const res = await admin(t.roles.url!, headers);
      expect(res.status).toBe(401);
      const body = await res.json();
      expect(body.error).toMatchObject({
        code: "unauthorized",
        field: "Authorization",
        message: expect.stringMatching(/server\.ops_token.*ops\.token/),
      });
    }
    const run = await fetch(`${t.roles.url}/api/v1/runs/6f1c1f4e-1111-4222-8333-444455556666`);
    expect(run.status).toBe(401);
  });

  it("answer the token the server wrote to <data_dir>/ops.token (mode 0600)", async () => {
    const file = path.join(t.app.config.data_dir, "ops.token");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const res = await admin(t.roles.url!, await opsAuth(t));
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ account_id: expect.any(String) });
  });
});

describe("ops routes with server.ops_token", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp("pglite", {
      roles: ["serve"],
      overrides: { server: { ops_token: "configured-ops-token-123" } },
    });
  });
  afterAll(() => t?.close());

  it("take that token and write no file", async () => {
    expect((await admin(t.roles.url!, { authorization: "Bearer configured-ops-token-123" })).status).toBe(200);
    expect((await admin(t.roles.url!)).status).toBe(401);
    await expect(stat(path.join(t.app.config.data_dir, "ops.token"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});
