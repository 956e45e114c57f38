// Contract slips found by the outside attack (issue 27, items 8 and 11), each checked against the
// published API description: an idempotent replay answers the first
// answer's exact bytes; POST /episodes/{id}/search refuses a missing body; a test-mode job's
// download link does not move between reads; an upload address closes at /uploaded.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleIds, SAMPLE_LINK_EXPIRES } from "../../facade/testmode.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { readFile } from "node:fs/promises";

describe.each(testBackends())("contract slips on %s", (backend) => {
  let t: ApiServer;
  let acc: { accountId: string; live: string; test: string };
  beforeAll(async () => {
    t = await openApiServer(backend);
    acc = await t.account({ creditCents: 100_000 });
  });
  afterAll(() => t?.close());

  const raw = async (key: string, method: string, p: string, body?: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${t.base}${p}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      body,
    });
    return { status: res.status, text: await res.text(), headers: res.headers };
  };

  it("replays an idempotent answer byte for byte, key order included", async () => {
    const body = JSON.stringify({ url: "https://93.184.215.14/hook", events: ["episode.ready", "clip.ready"] });
    const key = `slip-${randomUUID()}`;
    const first = await raw(acc.live, "POST", "/api/v1/webhooks", body, { "idempotency-key": key });
    expect(first.status).toBe(201);
    const again = await raw(acc.live, "POST", "/api/v1/webhooks", body, { "idempotency-key": key });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
  });

  it("refuses POST /episodes/{id}/search without a body, naming the body; {} is enough", async () => {
    const ep = sampleIds().episode;
    const none = await t.call(acc.test, "POST", `/api/v1/episodes/${ep}/search`);
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ code: "invalid_request", field: "body" });
    expect(none.body.error.message).toMatch(/body/);
    const empty = await t.call(acc.test, "POST", `/api/v1/episodes/${ep}/search`, {});
    expect(empty.status).toBe(202);
  });

  it("takes PATCH /clips/{id} with only save_as_default: true (saves the current look, renders nothing)", async () => {
    // Test mode answers without a clip to render; the live path's save is in test/api/restyle.test.ts.
    const clip = sampleIds().clips[0]!;
    const saved = await t.call(acc.test, "PATCH", `/api/v1/clips/${clip}`, { save_as_default: true });
    expect(saved.status, JSON.stringify(saved.body)).toBe(202);
    expect(saved.body).toMatchObject({ changes: [], charged_cents: 0 });
    const refused = await t.call(acc.test, "PATCH", `/api/v1/clips/${clip}`, { save_as_default: false });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "invalid_request", field: "body" });
  });

  it("answers a test-mode job with the same download link and expiry on every read", async () => {
    const jobs = sampleIds().jobs;
    const reads = [];
    for (const id of jobs) {
      const r = await t.call(acc.test, "GET", `/api/v1/jobs/${id}`);
      expect(r.status).toBe(200);
      if (r.body.download_url) reads.push(r.body);
    }
    expect(reads.length).toBeGreaterThan(0);
    const again = await t.call(acc.test, "GET", `/api/v1/jobs/${reads[0].job_id}`);
    expect(again.body.download_expires_at).toBe(reads[0].download_expires_at);
    expect(again.body.download_url).toBe(reads[0].download_url);
    // Fixed, not "7 days from this read" (which moves with the clock).
    expect(reads[0].download_expires_at).toBe(SAMPLE_LINK_EXPIRES.toISOString());
  });

  it("closes an upload address at /uploaded: later PUTs, whole or chunked, are 409 upload_closed", async () => {
    const created = await t.call(acc.live, "POST", "/api/v1/episodes", { name: "closing", file_name: "jfk.wav" });
    expect(created.status).toBe(202);
    const { url, headers } = created.body.upload as { url: string; headers: Record<string, string> };
    const file = await readFile(TEST_MEDIA.jfkWav);
    const put = await fetch(url, { method: "PUT", headers, body: file });
    expect(put.status).toBe(200);
    const done = await t.call(acc.live, "POST", `/api/v1/episodes/${created.body.episode_id}/uploaded`, {});
    expect(done.status).toBe(200);
    const late = await fetch(url, { method: "PUT", headers, body: Buffer.from(file) });
    expect(late.status).toBe(409);
    expect((await late.json()).error).toMatchObject({ code: "upload_closed", field: "token" });
    const chunk = await fetch(url, {
      method: "PUT",
      headers: { ...headers, "content-range": `bytes 0-99/${file.length}` },
      body: file.subarray(0, 100),
    });
    expect(chunk.status).toBe(409);
    expect((await chunk.json()).error.code).toBe("upload_closed");
  });
});
