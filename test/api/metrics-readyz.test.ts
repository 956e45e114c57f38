// Operations (issue 18, item 4): GET /metrics in Prometheus format behind the ops token, and
// /readyz for readiness, which turns 503 "draining" on shutdown while running steps finish.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestApp, type TestApp } from "../helpers/app.js";
import { opsAuth } from "../helpers/ops.js";
import { waitFor } from "../helpers/wait.js";

/** The value of one series in a Prometheus text body, or undefined. */
function series(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.indexOf("}"));
    if (Object.entries(labels).every(([k, v]) => inside.includes(`${k}="${v}"`)))
      return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return undefined;
}

describe("metrics and readiness", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp("pglite", {
      roles: ["work", "serve"],
      overrides: { queue: { shutdown_grace_seconds: 600 } },
    });
  });
  afterAll(() => t?.close());

  it("refuses /metrics without the ops token, naming the header", async () => {
    const res = await fetch(`${t.roles.url}/metrics`);
    expect(res.status).toBe(401);
    expect((await res.json()).error).toMatchObject({ code: "unauthorized", field: "Authorization" });
  });

  it("counts requests per operation, steps per stage, and reads queue depths", async () => {
    expect((await fetch(`${t.roles.url}/healthz`)).status).toBe(200);
    const run = await t.app.runner.startRun("t-quick", {});
    expect((await t.app.runner.waitForRun(run.id)).state).toBe("succeeded");
    const res = await fetch(`${t.roles.url}/metrics`, { headers: await opsAuth(t) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(
      series(text, "clipd_http_request_duration_seconds_count", { operation: "health", method: "GET", status: "200" }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      series(text, "clipd_step_duration_seconds_count", { stage: "record", outcome: "ok" }),
    ).toBeGreaterThanOrEqual(2);
    expect(series(text, "clipd_steps_total", { stage: "record", outcome: "ok" })).toBeGreaterThanOrEqual(2);
    // The step queue exists once a run has gone through it; its depth is read from pg-boss.
    expect(text).toMatch(/^clipd_queue_jobs\{queue="[^"]+",state="queued"\} \d+$/m);
    expect(text).toMatch(/^clipd_process_cpu_seconds_total /m);
    // Labels are operation ids, never raw paths with ids in them.
    expect(text).not.toMatch(/operation="\/api/);
  });

  it("is ready, then answers 503 draining on shutdown while a running step finishes", async () => {
    const ready = await fetch(`${t.roles.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      ready: true,
      draining: false,
      checks: { database: { ok: true }, store: { ok: true }, tools: { ok: true } },
    });

    const run = await t.app.runner.startRun("t-block", {});
    const marker = path.join(process.env.CLIPD_TEST_MARKERS!, `${run.id}.blocked`);
    await waitFor(() => existsSync(marker), { what: "the blocking step to start" });
    const stopping = t.roles.stop("test drain");
    const draining = await waitFor(
      async () => {
        const res = await fetch(`${t.roles.url}/readyz`);
        return res.status === 503 ? ((await res.json()) as any) : undefined;
      },
      { what: "/readyz to report draining" },
    );
    expect(draining).toMatchObject({ ready: false, draining: true, draining_since: expect.any(String) });
    // Liveness is not readiness: the process still answers /healthz while it drains.
    expect((await fetch(`${t.roles.url}/healthz`)).status).toBe(200);
    t.app.runner.abortAll("test over");
    await stopping;
  });
});
