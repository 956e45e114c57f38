// A pending webhook retry survives SIGKILL: the daemon is killed after a failed attempt and before
// its retry; after a restart the retry runs and the event is delivered exactly once, with the same
// webhook-id, verified by `standardwebhooks`.
import { afterEach, describe, expect, it } from "vitest";
import { testBackends } from "../helpers/backends.js";
import { spawnClipd, until, type Spawned } from "../helpers/cli.js";
import { daemonEnv, OPS_TOKEN } from "../helpers/daemon-config.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";

describe.each(testBackends())("webhook retries across a crash on %s", (backend) => {
  const procs: Spawned[] = [];
  let rx: Receiver | undefined;
  afterEach(async () => {
    procs.forEach((p) => p.kill("SIGKILL"));
    await rx?.close();
  });

  it("delivers once after kill -9 between a failed attempt and its retry", async () => {
    rx = await startReceiver();
    const url = rx.path("/hook", [500, 200]);
    // The first retry comes 1 scaled minute (6 s) after the failure.
    const d = await daemonEnv(backend, {
      network: { allow_loopback: true, extra_ca: rx.server.caPath },
      webhooks: { time_scale: 0.1, timeout_ms: 3000 },
    });
    const first = spawnClipd(["start"], d.env);
    procs.push(first);
    let base = (await first.waitFor(/is up: (http:\/\/[\d.:]+)/, 90_000))[1]!;
    const call = async (key: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const account = await call(OPS_TOKEN, "POST", "/api/v1/admin", {
      command: "account.create",
      args: { email: "crash@example.com" },
    });
    const key = await call(OPS_TOKEN, "POST", "/api/v1/admin", {
      command: "key.create",
      args: { account: account.body.account_id, mode: "live", scopes: "webhooks,transcripts" },
    });
    const live = String(key.body.key);
    const hook = await call(live, "POST", "/api/v1/webhooks", { url, events: ["transcript.failed"] });
    expect(hook.status).toBe(201);
    rx.secret("/hook", hook.body.secret);

    // A transcript whose link answers 404 fails at once: transcript.failed, from the API.
    const order = await call(live, "POST", "/api/v1/transcripts", { url: rx.server.url("/gone/talk.mp3") });
    expect(order.status).toBe(202);
    const pending = await until(
      async () => {
        const d0 = (await call(live, "GET", "/api/v1/webhooks")).body.webhooks[0]?.recent_deliveries[0];
        return d0?.status === "pending" && d0.attempts.length === 1 ? d0 : undefined;
      },
      { what: "the first attempt to fail and be recorded", timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(pending.attempts[0].status_code).toBe(500);
    expect(rx.receipts).toHaveLength(1);
    first.kill("SIGKILL");
    await first.exited;
    expect(rx.receipts).toHaveLength(1); // the retry had not happened yet

    const second = spawnClipd(["start"], d.env);
    procs.push(second);
    base = (await second.waitFor(/is up: (http:\/\/[\d.:]+)/, 90_000))[1]!;
    const done = await until(
      async () => {
        const d1 = (await call(live, "GET", "/api/v1/webhooks")).body.webhooks[0]?.recent_deliveries[0];
        return d1?.status === "delivered" ? d1 : undefined;
      },
      { what: "the retry to deliver after the restart", timeoutMs: 90_000, intervalMs: 250 },
    );
    expect(done.attempts.map((a: any) => a.status_code)).toEqual([500, 200]);
    // Nothing more arrives: "delivered" is the delivery's final state, and an attempt job that runs
    // after it (a duplicate from the crash) finds the delivery no longer pending and sends nothing.
    expect(rx.receipts.map((r) => r.answered)).toEqual([500, 200]);
    expect(rx.receipts.every((r) => r.verified)).toBe(true);
    expect(rx.receipts[1]!.id).toBe(rx.receipts[0]!.id);
    expect(rx.receipts[1]!.id).toBe(done.id);
    expect(JSON.parse(rx.receipts[1]!.body)).toMatchObject({
      type: "transcript.failed",
      livemode: true,
      data: { id: order.body.id },
    });
    second.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });
});
