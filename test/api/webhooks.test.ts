// /api/v1/webhooks over real HTTP on loopback: address rules under the default config, the limit of
// 5, and signed deliveries to a real https receiver that verifies each with `standardwebhooks`.
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELIVERY_QUEUE } from "../../daemon/account/webhooks.js";
import { FANOUT_QUEUE, recordEvent } from "../../daemon/engine/events.js";
import { listWebhooks } from "../../facade/operations/webhooks.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";
import { until } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";

const ajv = new Ajv({ strict: false });
addFormats.default(ajv);
const checkList = ajv.compile(listWebhooks.responses[200]!.schema!);
/** A public address that is never contacted in these tests (no event is subscribed to it). */
const PUBLIC = "https://93.184.215.14/hooks";

describe.each(testBackends())("webhook registry on %s (default config)", (backend) => {
  let t: ApiServer;
  let acc: { accountId: string; live: string; test: string };
  beforeAll(async () => {
    t = await openApiServer(backend);
    acc = await t.account();
  });
  afterAll(() => t?.close());

  it(
    "refuses http, private, loopback, link-local, CGNAT and metadata addresses, " + "and names resolving to them",
    async () => {
      const cases: Array<[string, string]> = [
        ["http://93.184.215.14/hooks", "invalid_url"],
        ["https://127.0.0.1/hooks", "forbidden_address"],
        ["https://10.0.0.5/hooks", "forbidden_address"],
        ["https://[::1]/hooks", "forbidden_address"],
        ["https://169.254.169.254/latest", "forbidden_address"],
        ["https://169.254.10.1/x", "forbidden_address"],
        ["https://100.64.0.1/x", "forbidden_address"],
        ["https://192.168.1.10/x", "forbidden_address"],
        ["https://localhost/hooks", "forbidden_address"],
        ["https://user:pw@93.184.215.14/x", "invalid_url"],
        ["not a url", "invalid_url"],
      ];
      for (const [url, code] of cases) {
        const res = await t.call(acc.live, "POST", "/api/v1/webhooks", { url });
        expect(res.status, url).toBe(400);
        expect(res.body.error, url).toMatchObject({ code, field: "url" });
      }
      const localhost = await t.call(acc.live, "POST", "/api/v1/webhooks", { url: "https://localhost/hooks" });
      expect(localhost.body.error.message).toMatch(/resolves to .*loopback/);
      expect((await t.call(acc.live, "GET", "/api/v1/webhooks")).body.webhooks).toEqual([]);
    },
  );

  it("validates the body, keeps at most 5 addresses, shows the secret once and deletes", async () => {
    const extra = await t.call(acc.live, "POST", "/api/v1/webhooks", { url: PUBLIC, secret: "mine" });
    expect(extra.status).toBe(400);
    expect(extra.body.error).toMatchObject({ code: "invalid_request", field: "secret" });
    const badEvent = await t.call(acc.live, "POST", "/api/v1/webhooks", { url: PUBLIC, events: ["clip.exploded"] });
    expect(badEvent.status).toBe(400);

    const first = await t.call(acc.live, "POST", "/api/v1/webhooks", {
      url: PUBLIC,
      events: ["clip.ready", "clip.failed"],
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      url: PUBLIC,
      events: ["clip.ready", "clip.failed"],
      enabled: true,
      recent_deliveries: [],
      livemode: true,
    });
    expect(first.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(first.body.secret.slice(6), "base64")).toHaveLength(32);
    const all = await t.call(acc.live, "POST", "/api/v1/webhooks", { url: `${PUBLIC}/2` });
    expect(all.body.events).toEqual([
      "episode.ready",
      "episode.failed",
      "clip.ready",
      "clip.failed",
      "transcript.completed",
      "transcript.failed",
    ]);
    for (let i = 3; i <= 5; i++)
      expect((await t.call(acc.test, "POST", "/api/v1/webhooks", { url: `${PUBLIC}/${i}` })).status).toBe(201);
    const sixth = await t.call(acc.live, "POST", "/api/v1/webhooks", { url: `${PUBLIC}/6` });
    expect(sixth.status).toBe(409);
    expect(sixth.body.error).toMatchObject({ code: "too_many_webhooks", limit: 5 });
    expect(sixth.body.error.message).toMatch(/at most 5/);

    const list = await t.call(acc.live, "GET", "/api/v1/webhooks");
    expect(list.status).toBe(200);
    expect(checkList(list.body), JSON.stringify(checkList.errors)).toBe(true);
    expect(list.body.webhooks).toHaveLength(5);
    expect(JSON.stringify(list.body)).not.toContain("whsec_"); // shown once only

    const other = await t.account();
    expect((await t.call(other.live, "DELETE", `/api/v1/webhooks/${first.body.id}`)).status).toBe(404);
    const noScope = await t.account({ scopes: ["clips.read"] });
    expect((await t.call(noScope.live, "GET", "/api/v1/webhooks")).status).toBe(403);

    const del = await t.call(acc.live, "DELETE", `/api/v1/webhooks/${first.body.id}`);
    expect(del).toMatchObject({ status: 200, body: { id: first.body.id, deleted: true } });
    expect((await t.call(acc.live, "DELETE", `/api/v1/webhooks/${first.body.id}`)).status).toBe(404);
    expect((await t.call(acc.live, "POST", "/api/v1/webhooks", { url: `${PUBLIC}/6` })).status).toBe(201);
  });
});

describe.each(testBackends())("webhook deliveries on %s", (backend) => {
  let t: ApiServer;
  let rx: Receiver;
  let acc: { accountId: string; live: string; test: string };
  // 1, 5, 30, 60 minutes become 0.12, 0.6, 3.6, 7.2 seconds; switched off after 7.2 s of failures.
  const SCALE = 0.002;
  beforeAll(async () => {
    rx = await startReceiver();
    t = await openApiServer(backend, {
      network: { allow_loopback: true, extra_ca: rx.server.caPath },
      webhooks: { time_scale: SCALE, timeout_ms: 1500, disable_after_hours: 1 },
      server: { public_url: "" },
    });
    acc = await t.account();
  });
  afterAll(async () => {
    await t?.close();
    await rx?.close();
  });

  async function register(path: string, plan?: Array<number | "hang">, events?: string[], body?: string) {
    const url = rx.path(path, plan, body);
    const res = await t.call(acc.live, "POST", "/api/v1/webhooks", { url, ...(events ? { events } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    rx.secret(path, res.body.secret);
    return res.body as { id: string; secret: string; url: string };
  }
  const receiptsOf = (path: string) => rx.receipts.filter((r) => r.path === path);
  /** Waits until every queue job carrying `data` has reached a final state: after that, nothing more is sent for it. */
  const settled = (queue: string, data: object, what: string) =>
    waitFor(
      async () => {
        const jobs = await t.app.queue.boss.findJobs(queue, { data });
        return jobs.length > 0 && jobs.every((j) => ["completed", "failed", "cancelled"].includes(j.state));
      },
      { what, timeoutMs: 60_000, intervalMs: 100 },
    );

  it("sends a signed test event that standardwebhooks verifies, and refuses a tampered body or timestamp", async () => {
    const hook = await register("/test-hook");
    const res = await t.call(acc.live, "POST", `/api/v1/webhooks/${hook.id}/test`, { event: "clip.ready" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ event: "clip.ready", delivered: true, status: 200 });
    const [r] = receiptsOf("/test-hook");
    expect(r!.verified).toBe(true);
    expect(r!.id).toBe(res.body.delivery_id);
    expect(Math.abs(Number(r!.timestamp) - Date.now() / 1000)).toBeLessThan(30);
    expect(r!.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const envelope = JSON.parse(r!.body);
    expect(Object.keys(envelope).sort()).toEqual(["data", "livemode", "timestamp", "type"]);
    expect(envelope).toMatchObject({ type: "clip.ready", livemode: true, data: { sample: true } });
    expect(envelope.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

    const wh = new Webhook(hook.secret);
    expect(() => wh.verify(r!.body, r!.headers)).not.toThrow();
    expect(() => wh.verify(r!.body.replace('"livemode":true', '"livemode":false'), r!.headers)).toThrow();
    expect(() =>
      wh.verify(r!.body, { ...r!.headers, "webhook-timestamp": String(Number(r!.timestamp) + 1) }),
    ).toThrow();
    expect(() => wh.verify(r!.body, { ...r!.headers, "webhook-id": "msg_other" })).toThrow();
    // A replay of an old, correctly signed message is refused for its age (> 5 minutes).
    const old = Math.floor(Date.now() / 1000) - 600;
    const forged = new Webhook(hook.secret).sign(r!.id, new Date(old * 1000), r!.body);
    expect(() =>
      wh.verify(r!.body, { ...r!.headers, "webhook-timestamp": String(old), "webhook-signature": forged }),
    ).toThrow(/too old/i);

    const test = await t.call(acc.test, "POST", `/api/v1/webhooks/${hook.id}/test`, {});
    expect(test.body).toMatchObject({ event: "episode.ready", delivered: true, livemode: false });
    expect(JSON.parse(receiptsOf("/test-hook")[1]!.body).livemode).toBe(false);
  });

  it("records a failed test send: non-2xx, redirect not followed, no answer in time", async () => {
    const five = await register("/five-hundred", [503], undefined, "x".repeat(3000));
    const r1 = await t.call(acc.live, "POST", `/api/v1/webhooks/${five.id}/test`, {});
    expect(r1.body).toMatchObject({ delivered: false, status: 503 });
    rx.server.route("/moved", (_req, res) => {
      res.writeHead(302, { location: rx.server.url("/test-hook") });
      res.end();
    });
    const moved = await t.call(acc.live, "POST", "/api/v1/webhooks", { url: rx.server.url("/moved") });
    const r2 = await t.call(acc.live, "POST", `/api/v1/webhooks/${moved.body.id}/test`, {});
    expect(r2.body).toMatchObject({ delivered: false, status: 302 });
    expect(r2.body.error).toMatch(/redirect/);
    const slow = await register("/slow", ["hang"]);
    const r3 = await t.call(acc.live, "POST", `/api/v1/webhooks/${slow.id}/test`, {});
    expect(r3.body).toMatchObject({ delivered: false, status: null });
    expect(r3.body.error).toMatch(/1500 ms/);

    const list = (await t.call(acc.live, "GET", "/api/v1/webhooks")).body.webhooks;
    const d = list.find((w: any) => w.id === five.id).recent_deliveries[0];
    expect(d).toMatchObject({ status: "failed", test: true, attempts: [{ attempt: 1, status_code: 503 }] });
    expect(d.attempts[0].response).toHaveLength(1024);
    // The page summary: the last answer's code, its body and the body sent, each cut at 1 KB.
    expect(d).toMatchObject({ attempt_count: 1, response_code: 503 });
    expect(d.response_body).toBe(d.attempts[0].response);
    expect(JSON.parse(d.request_body)).toMatchObject({ type: expect.any(String), data: expect.any(Object) });
    expect(d.attempts[0].latency_ms).toBeGreaterThanOrEqual(0);
    for (const id of [five.id, moved.body.id, slow.id]) await t.call(acc.live, "DELETE", `/api/v1/webhooks/${id}`);
  });

  it(
    "retries a failing receiver 1, 5 and 30 (scaled) minutes later; the 4th " +
      "attempt delivers with the same webhook-id",
    async () => {
      const hook = await register("/flaky", [500, 500, 500, 200], ["transcript.failed"]);
      // A real event from the API: a transcript whose link answers 404 fails at once.
      const order = await t.call(acc.live, "POST", "/api/v1/transcripts", { url: rx.server.url("/missing/talk.mp3") });
      expect(order.status).toBe(202);
      await until(() => receiptsOf("/flaky").length >= 4, { what: "4 attempts", timeoutMs: 60_000, intervalMs: 100 });
      const got = receiptsOf("/flaky");
      expect(got.map((r) => r.verified)).toEqual([true, true, true, true]);
      expect(new Set(got.map((r) => r.id)).size).toBe(1);
      expect(new Set(got.map((r) => r.body)).size).toBe(1);
      const ev = JSON.parse(got[0]!.body);
      expect(ev).toMatchObject({
        type: "transcript.failed",
        livemode: true,
        data: { id: order.body.id, status: "failed", error: { code: expect.any(String) } },
      });
      // The gaps follow the schedule: the third wait (30 scaled minutes, 3.6 s) is the longest.
      const times = got.map((r) => Number(r.timestamp));
      expect(times[3]! - times[2]!).toBeGreaterThanOrEqual(3);

      const view = await until(
        async () => {
          const list = (await t.call(acc.live, "GET", "/api/v1/webhooks")).body.webhooks;
          const d = list.find((w: any) => w.id === hook.id)?.recent_deliveries[0];
          return d?.status === "delivered" ? d : undefined;
        },
        { what: "the delivery to be recorded" },
      );
      expect(view.id).toBe(got[0]!.id);
      expect(view.attempts.map((a: any) => a.status_code)).toEqual([500, 500, 500, 200]);
      expect(view.attempts.map((a: any) => a.response)).toEqual(["ok", "ok", "ok", "ok"]);
      expect(view).toMatchObject({
        attempt_count: 4,
        response_code: 200,
        response_body: "ok",
        request_body: got[0]!.body,
      });
      await settled(DELIVERY_QUEUE, { deliveryId: view.id }, "every attempt job of the delivery to finish");
      expect(receiptsOf("/flaky")).toHaveLength(4); // nothing after success
    },
  );

  it("fills download links at delivery, and delivers only subscribed events", async () => {
    const path = "/links";
    const hook = await register(path, [200], ["clip.ready"]);
    await t.app.storage.write("runs/x/clip.mp4", "not really a video");
    const send = (type: string) =>
      t.app.db.transaction((tx) =>
        recordEvent(
          tx,
          {
            type,
            accountId: acc.accountId,
            livemode: true,
            data: { job_id: "j1", status: "completed" },
            links: { download_url: { key: "runs/x/clip.mp4", name: "clip-01.mp4", type: "video/mp4" } },
          },
          t.app.queue,
        ),
      );
    const unsubscribed = await send("episode.ready"); // not subscribed
    await send("clip.ready");
    await until(() => receiptsOf(path).length >= 1, { what: "clip.ready" });
    await settled(FANOUT_QUEUE, { eventId: unsubscribed }, "the episode.ready fan-out to finish");
    expect(receiptsOf(path).map((r) => JSON.parse(r.body).type)).toEqual(["clip.ready"]);
    const data = JSON.parse(receiptsOf(path)[0]!.body).data;
    expect(data.download_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/files\//);
    expect(data.download_expires_at).toMatch(/Z$/);
    const file = await fetch(data.download_url);
    expect(file.status).toBe(200);
    expect(await file.text()).toBe("not really a video");
    await t.call(acc.live, "DELETE", `/api/v1/webhooks/${hook.id}`);
  });

  it("switches an address off after failing for disable_after_hours (scaled), and on again by PATCH", async () => {
    const path = "/down";
    const hook = await register(path, [500], ["episode.failed"]);
    const send = () =>
      t.app.db.transaction((tx) =>
        recordEvent(
          tx,
          { type: "episode.failed", accountId: acc.accountId, livemode: true, data: { episode_id: "e1" } },
          t.app.queue,
        ),
      );
    await send();
    const off = await until(
      async () => {
        const w = (await t.call(acc.live, "GET", "/api/v1/webhooks")).body.webhooks.find((x: any) => x.id === hook.id);
        return w?.enabled === false ? w : undefined;
      },
      { what: "the address to be switched off", timeoutMs: 60_000, intervalMs: 250 },
    );
    expect(off.disabled_reason).toMatch(/failing/);
    expect(off.recent_deliveries[0].status).toBe("failed");
    const seen = receiptsOf(path).length;
    const whileOff = await send(); // not delivered while off
    await settled(FANOUT_QUEUE, { eventId: whileOff }, "the fan-out of the event sent while off to finish");
    expect(receiptsOf(path)).toHaveLength(seen);

    rx.path(path, [200]);
    const on = await t.call(acc.live, "PATCH", `/api/v1/webhooks/${hook.id}`, { enabled: true });
    expect(on.body).toMatchObject({ enabled: true, disabled_reason: null });
    await send();
    await until(() => receiptsOf(path).length > seen, { what: "delivery after switching on" });
    expect(receiptsOf(path).at(-1)!.verified).toBe(true);
  });
});
