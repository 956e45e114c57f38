// The website as a real clipd serves it over loopback (the build in dist/web, made by
// scripts/ensure-build.mjs): the app at / and its own paths, its real hashed bundle cached for a
// year, and the API, OpenAPI document and health check untouched beside it; web.enabled false
// turns the site off.
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { repoRoot } from "../helpers/cli.js";

let s: ApiServer;
beforeAll(async () => {
  execFileSync(process.execPath, [path.join(repoRoot, "scripts", "ensure-build.mjs")], {
    cwd: repoRoot,
    stdio: "inherit",
  });
  s = await openApiServer("pglite");
}, 300_000);
afterAll(() => s?.close());

describe("the website beside the API", () => {
  it("serves the built app at / and at app paths, never cached", async () => {
    const built = await readFile(path.join(repoRoot, "dist", "web", "index.html"), "utf8");
    for (const p of ["/", "/signin", "/keys", "/billing?x=1"]) {
      const res = await fetch(s.base + p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(await res.text()).toBe(built);
    }
    expect(built).toMatch(/<html lang="en">/);
    expect(built).toMatch(/<meta name="viewport"/);
  });

  it("serves the hashed bundle for a year, compressed, and 404 for a missing asset", async () => {
    const html = await (await fetch(s.base + "/")).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const res = await fetch(s.base + script!, { headers: { "accept-encoding": "br" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("content-encoding")).toBe("br");
    // fetch decodes br
    expect(await res.text()).toBe(await readFile(path.join(repoRoot, "dist", "web", script!.slice(1)), "utf8"));
    const missing = await fetch(s.base + "/assets/index-00000000.js");
    expect(missing.status).toBe(404);
  });

  it("leaves API paths to the API: JSON errors, the OpenAPI document, the health check", async () => {
    const api = await s.call(undefined, "GET", "/api/v1/no-such-thing");
    expect(api.status).toBe(404);
    expect(api.body.error.code).toBe("not_found");
    const webApi = await fetch(s.base + "/web/api/v1/no-such-thing");
    expect([webApi.status, webApi.headers.get("content-type")]).toEqual([404, "application/json"]);
    expect((await fetch(s.base + "/openapi.json")).headers.get("content-type")).toMatch(/json/);
    expect((await fetch(s.base + "/healthz")).headers.get("content-type")).toMatch(/json/);
    const post = await fetch(s.base + "/keys", { method: "POST" });
    expect([post.status, post.headers.get("content-type")]).toEqual([404, "application/json"]);
  });
});

describe("web.enabled false", () => {
  let off: ApiServer;
  beforeAll(async () => void (off = await openApiServer("pglite", { web: { enabled: false } })), 300_000);
  afterAll(() => off?.close());

  it("serves no site: / is the JSON 404", async () => {
    const res = await fetch(off.base + "/");
    expect([res.status, res.headers.get("content-type")]).toEqual([404, "application/json"]);
  });
});
