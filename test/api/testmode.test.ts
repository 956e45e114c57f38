// Test mode: svc_test_ keys get the fixed sample data of config/testmode.yaml, livemode false,
// and nothing is run, stored as an order or charged.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTestFixtures, sampleIds, sampleTranscript, sampleTranscriptFiles } from "../../facade/testmode.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";

describe("test-mode fixtures", () => {
  it("reads the sample ids from config/testmode.yaml", () => {
    const f = loadTestFixtures();
    expect(sampleIds()).toEqual({
      episode: f.episode.episode_id,
      transcript: f.transcript.id,
      clips: f.clips.map((c) => c.clip_id),
      jobs: f.jobs.map((j) => j.job_id),
    });
  });

  it("gives the same sample transcript every time", async () => {
    const a = await sampleTranscript();
    expect(a).toEqual(await sampleTranscript());
    expect(a).toMatchObject({
      status: "completed",
      livemode: false,
      charged_cents: 0,
      downloads: null,
      duration: "00:11",
    });
    expect(a.text).toContain("ask not what your country can do for you");
    const files = sampleTranscriptFiles();
    expect(files.srt).toMatch(/^1\n00:00:00,300 --> 00:00:03,100\nAnd so, my fellow Americans,\n/);
    expect(files.vtt).toMatch(/^WEBVTT\n\n00:00:00\.300 --> 00:00:03\.100\n/);
  });
});

describe.each(testBackends())("test keys on %s", (backend) => {
  let t: ApiServer;
  let acc: { accountId: string; live: string; test: string };
  beforeAll(async () => {
    t = await openApiServer(backend);
    acc = await t.account();
  });
  afterAll(() => t?.close());

  it("answers transcripts with the sample, starting and charging nothing, even below zero", async () => {
    await t.app.db.query(`update accounts set credit_cents = -500 where id = $1`, [acc.accountId]);
    // A public address literal: no DNS needed, and test mode fetches nothing anyway.
    const body = { url: "https://93.184.215.14/anything.mp3" };
    const a = await t.call(acc.test, "POST", "/api/v1/transcripts", body);
    const b = await t.call(acc.test, "POST", "/api/v1/transcripts", { ...body, name: "Other name" });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    const expected = await sampleTranscript();
    const strip = (x: any) => ({ ...x, downloads: null });
    expect(strip(a.body)).toEqual(expected);
    expect(strip(b.body)).toEqual(expected);
    expect(a.body.livemode).toBe(false);
    const { TRANSCRIPT_SCHEMA } = await import("../../facade/operations/transcripts.js");
    const { Ajv } = await import("ajv");
    const check = new Ajv({ strict: false }).compile(TRANSCRIPT_SCHEMA);
    expect(check(a.body), JSON.stringify(check.errors)).toBe(true);

    const txt = await fetch(a.body.downloads.txt);
    expect(txt.status).toBe(200);
    expect(await txt.text()).toBe(sampleTranscriptFiles().txt);
    expect((await fetch(a.body.downloads.page)).status).toBe(200);

    const got = await t.call(acc.test, "GET", `/api/v1/transcripts/${sampleIds().transcript}`);
    expect(got.status).toBe(200);
    expect(strip(got.body)).toEqual(expected);
    expect((await t.call(acc.test, "GET", `/api/v1/transcripts/${randomUUID()}`)).status).toBe(404);
    // The live key of the same account knows nothing of the sample.
    expect((await t.call(acc.live, "GET", `/api/v1/transcripts/${sampleIds().transcript}`)).status).toBe(404);

    for (const table of ["runs", "transcripts"]) {
      const { rows } = await t.app.db.query(`select count(*)::int as n from ${table}`);
      expect(rows[0].n, table).toBe(0);
    }
    const ledger = await t.app.db.query(`select count(*)::int as n from ledger where account_id = $1`, [acc.accountId]);
    expect(ledger.rows[0].n).toBe(0);
  });

  it("still validates input and refuses private addresses in test mode", async () => {
    const bad = await t.call(acc.test, "POST", "/api/v1/transcripts", { url: "https://10.0.0.1/x.mp3" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "forbidden_address", field: "url" });
    const missing = await t.call(acc.test, "POST", "/api/v1/transcripts", {});
    expect(missing.body.error).toMatchObject({ code: "invalid_request", field: "url" });
  });

  it("says livemode false on /me", async () => {
    const me = await t.call(acc.test, "GET", "/api/v1/me");
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ livemode: false, key: { mode: "test" } });
  });
});
