// The website's serving rules (facade/site.ts) on a built app of our own making in a temp folder:
// cache headers, precompressed assets, the app for unknown paths, 404 for a missing asset, the
// not-built page, and paths the app never takes (API, MCP, operation routes, other methods).
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { H3 } from "h3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { siteOr } from "../../facade/site.js";

const INDEX = '<!doctype html><html lang="en"><body><div id="root"></div></body></html>';
const JS = "console.log('a hashed bundle');\n".repeat(100);
const routes = [{ path: "/webhooks/stripe" }, { path: "/api/v1/webhooks/{id}" }];
let dir = "";

/** An app with the site in front of a fallback that says it was reached. */
function appFor(opts: { enabled?: boolean; dir?: string } = {}) {
  const app = new H3();
  const fallback = () =>
    new Response(JSON.stringify({ error: { code: "not_found", message: "fallback" } }), {
      status: 404,
      headers: { "content-type": "application/json" },
    });
  app.all("/**", siteOr({ enabled: opts.enabled ?? true, dir: opts.dir ?? dir }, routes, fallback));
  return (p: string, init: RequestInit = {}) => Promise.resolve(app.fetch(new Request(`http://site.test${p}`, init)));
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "clipd-site-"));
  await mkdir(path.join(dir, "assets"));
  await writeFile(path.join(dir, "index.html"), INDEX);
  await writeFile(path.join(dir, "assets", "index-Ab12.js"), JS);
  await writeFile(path.join(dir, "assets", "index-Ab12.js.br"), brotliCompressSync(JS));
  await writeFile(path.join(dir, "assets", "index-Ab12.js.gz"), gzipSync(JS));
  await writeFile(path.join(dir, "assets", "style-Cd34.css"), "body{color:#111}");
  await writeFile(path.join(dir, "robots.txt"), "User-agent: *\n");
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("site serving", () => {
  const get = (p: string, init?: RequestInit) => appFor()(p, init); // made after beforeAll wrote the folder

  it("answers index.html, never cached, at / and at any app path", async () => {
    for (const p of ["/", "/keys", "/webhooks", "/reset-password?token=abc", "/no/such/page"]) {
      const res = await get(p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(await res.text()).toBe(INDEX);
    }
  });

  it("serves hashed assets for a year, compressed when the client accepts it", async () => {
    const plain = await get("/assets/index-Ab12.js", { headers: { "accept-encoding": "identity" } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(plain.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe(JS);
    const br = await get("/assets/index-Ab12.js", { headers: { "accept-encoding": "gzip, deflate, br" } });
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(br.headers.get("vary")).toBe("accept-encoding");
    const gz = await get("/assets/index-Ab12.js", { headers: { "accept-encoding": "gzip, br;q=0" } });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    // none written: the plain file
    const css = await get("/assets/style-Cd34.css", { headers: { "accept-encoding": "br" } });
    expect([css.status, css.headers.get("content-encoding"), css.headers.get("content-type")]).toEqual([
      200,
      null,
      "text/css; charset=utf-8",
    ]);
  });

  it("answers 404 for a missing asset, and for anything under /assets/ that is not a plain name", async () => {
    for (const p of [
      "/assets/index-Zz99.js",
      "/assets/sub/x.js",
      "/assets/.hidden",
      "/assets/%2e%2e%2findex.html",
      "/assets/",
    ]) {
      const res = await get(p);
      expect(res.status, p).toBe(404);
      expect(res.headers.get("cache-control")).toBe("no-cache");
    }
  });

  it("serves top-level files as they are, not cached long; a missing one is 404, not the app", async () => {
    const robots = await get("/robots.txt");
    expect([
      robots.status,
      robots.headers.get("content-type"),
      robots.headers.get("cache-control"),
      await robots.text(),
    ]).toEqual([200, "text/plain; charset=utf-8", "no-cache", "User-agent: *\n"]);
    expect((await get("/favicon.ico")).status).toBe(404);
    expect(await (await get("/index.html")).text()).toBe(INDEX);
  });

  it("answers HEAD with the headers and no body", async () => {
    const res = await get("/keys", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(await res.text()).toBe("");
  });

  it("leaves API, MCP, operation paths and other methods to the fallback", async () => {
    const paths = [
      "/api/v1/nope",
      "/api",
      "/web/api/v1/nope",
      "/mcp",
      "/openapi.json",
      "/healthz",
      "/webhooks/stripe",
      "/api/v1/webhooks/8a1c",
    ];
    for (const p of paths) {
      const res = await get(p);
      expect(res.status, p).toBe(404);
      expect(res.headers.get("content-type"), p).toBe("application/json");
    }
    for (const method of ["POST", "PUT", "PATCH", "DELETE"])
      expect((await get("/keys", { method })).headers.get("content-type"), method).toBe("application/json");
  });

  it("says the site was not built when its folder is missing", async () => {
    const res = await appFor({ dir: path.join(dir, "not-here") })("/keys");
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("website was not built");
  });

  it("is off with web.enabled false: everything goes to the fallback", async () => {
    const res = await appFor({ enabled: false })("/");
    expect([res.status, res.headers.get("content-type")]).toEqual([404, "application/json"]);
  });
});
