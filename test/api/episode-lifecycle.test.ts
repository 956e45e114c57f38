// The episode list a page at a time, cancel and delete over HTTP against a real server on loopback:
// pages of 10 (the published size) with next_cursor past the tenth, none twice; a cancelled episode
// charges nothing; a deleted one is gone with its stored upload; the three say x-extension in
// OpenAPI. Answers are checked against the OpenAPI document by the helper.
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { TEST_MEDIA } from "../helpers/media.js";

describe("episodes: pages, cancel, delete", () => {
  let s: ApiServer;
  beforeAll(async () => {
    s = await openApiServer("pglite");
  }, 120_000);
  afterAll(() => s?.close());

  it("pages the list past 10 with next_cursor, newest first, none twice", async () => {
    const a = await s.account({ creditCents: 5000 });
    const made: string[] = [];
    for (let i = 0; i < 13; i++) {
      const r = await s.call(a.live, "POST", "/api/v1/episodes", { file_name: `talk-${i}.mp3` });
      expect(r.status).toBe(202);
      made.push(r.body.episode_id);
    }
    const first = await s.call(a.live, "GET", "/api/v1/episodes");
    expect(first.status).toBe(200);
    expect(first.body.episodes).toHaveLength(10);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await s.call(a.live, "GET", `/api/v1/episodes?cursor=${first.body.next_cursor}`);
    expect(second.body.episodes).toHaveLength(3);
    expect(second.body.next_cursor).toBeNull();
    const seen = [...first.body.episodes, ...second.body.episodes].map((e: { episode_id: string }) => e.episode_id);
    expect(new Set(seen).size).toBe(13);
    expect(seen).toEqual([...made].reverse());
    // Another page size, and a cursor that names nothing of this list.
    const five = await s.call(a.live, "GET", "/api/v1/episodes?limit=5");
    expect(five.body.episodes).toHaveLength(5);
    const bad = await s.call(a.live, "GET", "/api/v1/episodes?cursor=ep_00000000-0000-4000-8000-000000000000");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_cursor", field: "cursor" });
    expect((await s.call(a.live, "GET", "/api/v1/episodes?limit=51")).body.error.field).toBe("limit");
  });

  it("cancels an episode before its search (nothing charged) and deletes one with its files", async () => {
    const a = await s.account({ creditCents: 5000 });
    const made = (await s.call(a.live, "POST", "/api/v1/episodes", { file_name: "talk.wav" })).body;
    const cancelled = await s.call(a.live, "POST", `/api/v1/episodes/${made.episode_id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      status: "failed",
      failure: { code: "cancelled" },
      charged_cents: 0,
      message: expect.stringMatching(/nothing was charged/),
    });
    const me = (await s.call(a.live, "GET", "/api/v1/me")).body;
    expect(me.credit.credit_cents).toBe(5000);
    const again = await s.call(a.live, "POST", `/api/v1/episodes/${made.episode_id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("episode_not_cancellable");
    // With an Idempotency-Key, a retried cancel is answered as the first one was (issue 36).
    const keyedEp = (await s.call(a.live, "POST", "/api/v1/episodes", { file_name: "talk.wav" })).body;
    const keyed = { "idempotency-key": `cancel-${keyedEp.episode_id}` };
    const first = await s.call(a.live, "POST", `/api/v1/episodes/${keyedEp.episode_id}/cancel`, undefined, keyed);
    const retried = await s.call(a.live, "POST", `/api/v1/episodes/${keyedEp.episode_id}/cancel`, undefined, keyed);
    expect(first.status).toBe(200);
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual(first.body);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");

    // An upload sent, then the episode deleted: rows and the stored file are gone.
    const up = (await s.call(a.live, "POST", "/api/v1/episodes", { file_name: "talk.wav" })).body;
    const put = await fetch(up.upload.url, {
      method: "PUT",
      headers: up.upload.headers,
      body: await readFile(TEST_MEDIA.jfkWav),
    });
    expect(put.status).toBeLessThan(300);
    const key = (await s.app.db.query(`select upload->>'key' as k from episodes where id = $1`, [up.episode_id]))
      .rows[0].k;
    expect(await s.app.storage.exists(key)).toBe(true);
    const del = await s.call(a.live, "DELETE", `/api/v1/episodes/${up.episode_id}`);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ episode_id: up.episode_id, deleted: true });
    expect(await s.app.storage.exists(key)).toBe(false);
    expect((await s.call(a.live, "GET", `/api/v1/episodes/${up.episode_id}`)).status).toBe(404);
    expect((await s.call(a.live, "DELETE", `/api/v1/episodes/${up.episode_id}`)).status).toBe(404);
    // Another account's episode is not found, never deleted.
    const other = await s.account({ creditCents: 0 });
    expect((await s.call(other.live, "DELETE", `/api/v1/episodes/${made.episode_id}`)).status).toBe(404);
  });

  it("says why a ready episode has no clips and what to try", async () => {
    const a = await s.account({ creditCents: 0 });
    const id = crypto.randomUUID();
    // A search that found nothing, on a transcript from pocketsphinx (as the run-end hook leaves it).
    const state = { transcript: { engine: "pocketsphinx", words: Array.from({ length: 12 }, () => ({})) } };
    await s.app.db.query(
      `insert into episodes (id, account_id, livemode, name, status, state) ` +
        `values ($1, $2, true, 'quiet', 'ready', $3)`,
      [id, a.accountId, JSON.stringify(state)],
    );
    const ep = (await s.call(a.live, "GET", `/api/v1/episodes/${id}`)).body;
    expect(ep).toMatchObject({ status: "ready", clips: [], hint: expect.stringMatching(/only 12 words/) });
    const steps = ep.next_steps.join("\n");
    expect(steps).toMatch(/with about/);
    expect(steps).toMatch(/target_seconds/);
    expect(steps).toMatch(/whisper/);
  });

  it("says in OpenAPI what goes beyond the published contract", async () => {
    const doc = await (await fetch(`${s.base}/openapi.json`)).json();
    expect(doc.paths["/api/v1/episodes"].get["x-extension"]).toMatch(/cursor/);
    expect(doc.paths["/api/v1/episodes/{id}/cancel"].post["x-extension"]).toEqual(expect.any(String));
    expect(doc.paths["/api/v1/episodes/{id}"].delete["x-extension"]).toEqual(expect.any(String));
  });
});
