// The account API's answers against its published description, item by item: optional bodies
// and uploads typed by their bytes, the described clip fields, string caption ids, search always
// 202, fit names, whole-second target lengths, the same checks for test and live keys, URL checks
// at request time, a consistent test mode, and messages that name allowed values and bad refs.
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTestFixtures, sampleIds } from "../../facade/testmode.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { until } from "../helpers/cli.js";
import { TEST_MEDIA } from "../helpers/media.js";

const MMSS = /^\d{2,}:\d{2}$/;

describe("account API contract", () => {
  let s: ApiServer;
  let acc: { accountId: string; live: string; test: string };
  beforeAll(async () => {
    s = await openApiServer("pglite");
    acc = await s.account({ plan: true, creditCents: 5000 });
  }, 60_000);
  afterAll(() => s?.close());

  const waitReady = (id: string) =>
    until(
      async () => {
        const r = await s.call(acc.live, "GET", `/api/v1/episodes/${id}`);
        expect(r.body.status, JSON.stringify(r.body.failure)).not.toBe("failed");
        return r.body.status === "ready" ? r.body : undefined;
      },
      { what: `episode ${id} ready`, timeoutMs: 150_000 },
    );

  it(
    "starts an episode with no body, takes an unnamed upload, types it by its " +
      "bytes, and shows the described clip fields",
    async () => {
      for (const body of [undefined, {}, { name: "Only a name" }]) {
        const r = await s.call(acc.live, "POST", "/api/v1/episodes", body);
        expect(r.status, JSON.stringify(r.body)).toBe(202);
        expect(r.body).toMatchObject({
          episode_id: expect.any(String),
          status: "awaiting_upload",
          livemode: true,
          upload: { method: "PUT", url: expect.any(String), headers: expect.any(Object) },
        });
      }
      // Text sent to an unnamed upload is refused when the upload is reported, and nothing is lost.
      const txt = await s.call(acc.live, "POST", "/api/v1/episodes", { name: "Not media" });
      const put = await fetch(txt.body.upload.url, {
        method: "PUT",
        headers: txt.body.upload.headers,
        body: "just some notes, not a recording\n".repeat(40),
      });
      expect(put.status).toBe(200);
      const refused = await s.call(acc.live, "POST", `/api/v1/episodes/${txt.body.episode_id}/uploaded`);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "unsupported_type", detected: "text" });
      expect((await s.call(acc.live, "GET", `/api/v1/episodes/${txt.body.episode_id}`)).body.status).toBe(
        "awaiting_upload",
      );

      const created = await s.call(acc.live, "POST", "/api/v1/episodes", { target_seconds: 15 });
      const up = await fetch(created.body.upload.url, {
        method: "PUT",
        headers: created.body.upload.headers,
        body: await readFile(TEST_MEDIA.jfkWav),
      });
      expect(up.status).toBe(200);
      const done = await s.call(acc.live, "POST", `/api/v1/episodes/${created.body.episode_id}/uploaded`);
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      const ep = await waitReady(created.body.episode_id);
      expect(ep.clips.length).toBeGreaterThan(0);
      for (const c of ep.clips) {
        expect(c).toMatchObject({
          number: expect.any(Number),
          ref: expect.any(String),
          title: expect.any(String),
          hook: expect.any(String),
          pieces: expect.any(Number),
        });
        expect(c.start).toMatch(MMSS);
        expect(c.end).toMatch(MMSS);
        expect(c.length).toMatch(/^\d+:\d{2}$/);
        expect(Number.isInteger(c.pieces) && c.pieces >= 1).toBe(true);
      }

      // A bad clip reference is named as such; an enum error lists what is allowed.
      const bad = await s.call(acc.live, "POST", `/api/v1/episodes/${ep.episode_id}/clips`, { clips: ["x9"] });
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toContain('unknown clip reference "x9"');
      const size = await s.call(acc.live, "POST", `/api/v1/episodes/${ep.episode_id}/clips`, {
        clips: [1],
        caption_size: "huge",
      });
      expect(size.status).toBe(400);
      expect(size.body.error).toMatchObject({ field: "caption_size" });
      for (const v of ["small", "medium", "large", "extra_large", "smaller", "bigger"])
        expect(size.body.error.message).toContain(`"${v}"`);

      // Search: {} searches again with the episode's options; always 202, searching or done.
      const again = await s.call(acc.live, "POST", `/api/v1/episodes/${ep.episode_id}/search`, {});
      expect(again.status).toBe(202);
      expect(again.body.status).toBe("searching");
      await waitReady(ep.episode_id);
      const about = await s.call(acc.live, "POST", `/api/v1/episodes/${ep.episode_id}/search`, {
        about: "your country",
      });
      expect(about.status).toBe(202);
      expect(about.body.status).toBe("searching");
      await waitReady(ep.episode_id);
      const repeat = await s.call(acc.live, "POST", `/api/v1/episodes/${ep.episode_id}/search`, {
        about: "your country",
      });
      expect(repeat.status).toBe(202);
      expect(repeat.body.status).toBe("done");

      // Caption ids are strings.
      const cut = await s.call(acc.live, "POST", `/api/v1/episodes/${ep.episode_id}/clips`, {
        clips: [1, 1],
        fit: "fill",
      });
      expect(cut.status, JSON.stringify(cut.body)).toBe(202);
      expect(cut.body.jobs).toHaveLength(1);
      const caps = await s.call(acc.live, "GET", `/api/v1/clips/${cut.body.jobs[0].clip_id}/captions`);
      expect(caps.status).toBe(200);
      expect(caps.body.captions.length).toBeGreaterThan(0);
      for (const c of caps.body.captions) expect(typeof c.id).toBe("string");
    },
  );

  it("checks fields the same way for test and live keys", async () => {
    for (const key of [acc.test, acc.live]) {
      const txt = await s.call(key, "POST", "/api/v1/episodes", { file_name: "notes.txt" });
      expect(txt.status).toBe(400);
      expect(txt.body.error).toMatchObject({ code: "unsupported_type", field: "file_name" });
      const half = await s.call(key, "POST", "/api/v1/episodes", { file_name: "a.mp3", target_seconds: 30.5 });
      expect(half.status).toBe(400);
      expect(half.body.error).toMatchObject({ field: "target_seconds" });
      const nohost = await s.call(key, "POST", "/api/v1/episodes", {
        source_url: "https://no-such-host.invalid/episode.mp3",
      });
      expect(nohost.status).toBe(400);
      expect(nohost.body.error).toMatchObject({ code: "invalid_url", field: "source_url" });
      expect(nohost.body.error.message).toContain("no-such-host.invalid");
      const priv = await s.call(key, "POST", "/api/v1/episodes", { source_url: "https://10.1.2.3/episode.mp3" });
      expect(priv.status).toBe(400);
      expect(priv.body.error).toMatchObject({ code: "forbidden_address", field: "source_url" });
      const fit = await s.call(key, "PATCH", `/api/v1/clips/${sampleIds().clips[0]}`, { fit: "stretch" });
      expect(fit.status).toBe(400);
      expect(fit.body.error.message).toMatch(/"fill".*"whole"/);
    }
  });

  it("refuses the same webhook address twice on one account", async () => {
    const url = "https://93.184.215.14/hooks/same";
    const first = await s.call(acc.live, "POST", "/api/v1/webhooks", { url });
    expect(first.status).toBe(201);
    const second = await s.call(acc.live, "POST", "/api/v1/webhooks", { url });
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ code: "webhook_exists", field: "url", webhook_id: first.body.id });
  });

  it(
    "keeps test mode consistent: own captions, download links, the same job " + "everywhere, one job per clip",
    async () => {
      const f = loadTestFixtures();
      const ep = f.episode.episode_id;
      for (const c of f.clips) {
        const caps = await s.call(acc.test, "GET", `/api/v1/clips/${c.clip_id}/captions`);
        expect(caps.status).toBe(200);
        expect(caps.body.captions.map((x: any) => x.text)).toEqual((c.captions ?? []).map((x) => x.text));
        for (const x of caps.body.captions) expect(typeof x.id).toBe("string");
      }
      const exported = await s.call(acc.test, "POST", `/api/v1/episodes/${ep}/clips`, {
        clips: [1, 1, 2, "c" + f.clips[0]!.clip_id.slice(-6)],
        fit: "crop",
      });
      expect(exported.status).toBe(202);
      expect(exported.body.jobs).toHaveLength(2);
      for (const job of exported.body.jobs) {
        const got = await s.call(acc.test, "GET", `/api/v1/jobs/${job.job_id}`);
        expect(got.status).toBe(200);
        const { number, ref, download_url, download_expires_at, ...same } = job;
        const { download_url: u2, download_expires_at: e2, ...gotSame } = got.body;
        expect(same).toEqual(gotSame);
        expect(got.body.status).toBe("completed");
        expect(typeof u2).toBe("string");
        const file = await fetch(u2);
        expect(file.status).toBe(200);
        expect(file.headers.get("content-type")).toBe("video/mp4");
        expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(1000);
      }
      // A test upload address takes the file and keeps nothing.
      const created = await s.call(acc.test, "POST", "/api/v1/episodes", { file_name: "talk.wav" });
      expect(created.status).toBe(202);
      expect(created.body).toMatchObject({ livemode: false, upload: { method: "PUT" } });
      const put = await fetch(created.body.upload.url, {
        method: "PUT",
        headers: created.body.upload.headers,
        body: await readFile(TEST_MEDIA.jfkWav),
      });
      expect(put.status).toBe(200);
      expect(await put.json()).toMatchObject({ livemode: false });
      expect(await s.app.storage.exists(`uploads/${acc.accountId}/${ep}/talk.wav`)).toBe(false);
    },
  );
});
