// No request may end the process (issue 36). A real daemon, in its own process, is sent every
// route it serves with bodies that are malformed, oversized, chunked, broken off, badly framed or
// refused before they are read; after each route it must still answer /healthz and still be
// running. A second daemon has an error escape a request on purpose (the escape: fault point):
// that request is ended and the process goes on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../facade/app.js";
import { MCP_PATH } from "../../facade/mcp/http.js";
import { servedOn } from "../../facade/registry.js";
import { WEB_PREFIX } from "../../facade/web/transport.js";
import { startWebClipd, type WebClipd } from "../helpers/browser.js";
import { rawRequest, type RawRequest } from "../helpers/raw-http.js";

const JSON_TYPE = { "content-type": "application/json" };
const FORM_TYPE = { "content-type": "application/x-www-form-urlencoded" };
const big = (n: number) => Buffer.alloc(n, "a");

/** Every way a body can be wrong, for one method and path. */
function badRequests(method: string, path: string): RawRequest[] {
  const at = { method, path };
  return [
    { ...at, headers: { ...JSON_TYPE, "content-length": 5 }, pieces: ['{"a":'] },
    { ...at, headers: { ...JSON_TYPE, "content-length": 50_000_000 }, pieces: [big(1024)] },
    { ...at, headers: JSON_TYPE, chunked: true, pieces: Array.from({ length: 80 }, () => big(16 * 1024)) },
    { ...at, headers: FORM_TYPE, chunked: true, pieces: [big(17_000)] },
    { ...at, headers: { ...FORM_TYPE, "content-length": 17_000 }, pieces: [big(17_000)] },
    { ...at, headers: { ...JSON_TYPE, "content-length": 100_000 }, pieces: [big(100)], abort: true },
    { ...at, headers: JSON_TYPE, chunked: true, pieces: [big(5000)], abort: true, unterminated: true },
    { ...at, headers: JSON_TYPE, chunked: true, raw: "zz\r\nnot a chunk\r\n0\r\n\r\n" },
    {
      ...at,
      headers: { "content-type": "multipart/form-data; boundary=x", "content-length": 9 },
      pieces: ["--x\r\nbad"],
    },
    { ...at, headers: { ...JSON_TYPE, "content-length": 1, authorization: "Bearer ck_live_nope" }, pieces: ["\0"] },
  ];
}

function everyRoute(): { method: string; path: string }[] {
  const fill = (p: string) => p.replace(/\{(\w+)\}/g, "00000000-0000-4000-8000-000000000000");
  const routes = new Map<string, { method: string; path: string }>();
  for (const op of OPERATIONS) {
    const path = fill(op.path);
    if (servedOn(op, "api")) routes.set(`${op.method} ${path}`, { method: op.method, path });
    if (servedOn(op, "web"))
      routes.set(`${op.method} ${WEB_PREFIX}${path}`, { method: op.method, path: WEB_PREFIX + path });
  }
  for (const [method, path] of [
    ["POST", MCP_PATH],
    ["GET", "/openapi.json"],
    ["POST", "/"],
    ["GET", "/studio"],
    ["PUT", "/api/v1/uploads/not-a-token"],
    ["DELETE", "/no/such/route"],
  ] as const)
    routes.set(`${method} ${path}`, { method, path });
  return [...routes.values()];
}

async function stillServing(clipd: WebClipd): Promise<void> {
  const alive = await Promise.race([clipd.daemon.exited.then(() => false), Promise.resolve(true)]);
  expect(alive, `the daemon exited:\n${clipd.daemon.output().slice(-3000)}`).toBe(true);
  const res = await fetch(`${clipd.url}/healthz`);
  expect(res.status).toBe(200);
}

describe("no request ends the process", () => {
  let clipd: WebClipd;
  beforeAll(async () => {
    // A limit high enough that the flood is answered by the routes, not the rate limiter alone.
    clipd = await startWebClipd({ config: { api: { rate_limit: { requests: 100_000 } } } });
  }, 180_000);
  afterAll(async () => clipd?.stop());

  it("survives malformed, oversized, chunked, aborted and early-answered bodies on every route", async () => {
    const routes = everyRoute();
    expect(routes.length).toBeGreaterThan(100);
    const answered = new Map<number | undefined, number>();
    // A few routes at a time: every variant of a route is in flight together.
    for (let i = 0; i < routes.length; i += 6) {
      const batch = routes.slice(i, i + 6).flatMap((r) => badRequests(r.method, r.path));
      for (const res of await Promise.all(batch.map((r) => rawRequest(clipd.port, r))))
        answered.set(res.status, (answered.get(res.status) ?? 0) + 1);
      await stillServing(clipd);
    }
    // The refusals were answers, not dropped connections: no 500 among them.
    expect(answered.get(500) ?? 0).toBe(0);
    expect(clipd.daemon.output()).not.toMatch(/TypeError|uncaught error outside any request/);
  });

  it("the reported repro: a chunked form over 16 KB to each OAuth endpoint", async () => {
    for (const path of ["/oauth/token", "/oauth/register", "/oauth/revoke"]) {
      const res = await rawRequest(clipd.port, {
        method: "POST",
        path,
        headers: FORM_TYPE,
        chunked: true,
        pieces: [big(17_000)],
      });
      expect(res.status, `${path}: ${res.text}\n${clipd.daemon.output().slice(-2000)}`).toBe(400);
      await stillServing(clipd);
    }
  });
});

describe("an error that escapes a request ends that request only", () => {
  let clipd: WebClipd;
  beforeAll(async () => {
    // Every /healthz answer is followed by a throw from a callback and a rejection nobody awaits.
    clipd = await startWebClipd({ env: { CLIPD_FAULTS: "escape:after-handler:health" } });
  }, 180_000);
  afterAll(async () => clipd?.stop());

  it("logs it, ends the request and keeps serving", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await rawRequest(clipd.port, { method: "GET", path: "/healthz" });
      // Answered, or ended by the guard with a 500; either way the connection closed and no more.
      expect([200, 500, undefined]).toContain(res.status);
    }
    await clipd.daemon.waitFor(/an error escaped a request/);
    await clipd.daemon.waitFor(/a request left a promise rejected/);
    const doc = await fetch(`${clipd.url}/openapi.json`);
    expect(doc.status).toBe(200);
    const alive = await Promise.race([clipd.daemon.exited.then(() => false), Promise.resolve(true)]);
    expect(alive).toBe(true);
  });
});
