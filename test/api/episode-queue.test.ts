// Where a waiting episode stands in the step queue, over HTTP against a real server on loopback (and
// PostgreSQL) that works no steps (serve role only), so every import waits: the third episode made reports 2 ahead,
// in its own read and in the list, whichever account made the two before it. Answers are checked
// against the OpenAPI document by the helper.
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { TEST_MEDIA } from "../helpers/media.js";

describe("episodes: queue position", () => {
  let s: ApiServer;
  beforeAll(async () => {
    // PostgreSQL: a serve-only process on PGlite is no deployment (PGlite is one process's database),
    // and pg-boss's first send there waits on the one connection its transaction holds.
    s = await openApiServer("postgres", {}, ["serve"]);
  }, 120_000);
  afterAll(() => s?.close());

  it("a queued episode behind two others reports 2 ahead", async () => {
    const wav = await readFile(TEST_MEDIA.jfkWav);
    const a = await s.account({ creditCents: 5000 });
    const b = await s.account({ creditCents: 5000 });
    const make = async (key: string, name: string) => {
      const r = await s.call(key, "POST", "/api/v1/episodes", { file_name: `${name}.wav`, name });
      expect(r.status).toBe(202);
      const put = await fetch(r.body.upload.url, { method: "PUT", headers: r.body.upload.headers, body: wav });
      expect(put.status).toBeLessThan(300);
      expect((await s.call(key, "POST", `/api/v1/episodes/${r.body.episode_id}/uploaded`)).status).toBe(200);
      return r.body.episode_id as string;
    };
    const first = await make(a.live, "first");
    await make(b.live, "second");
    const third = await make(a.live, "third");

    const one = await s.call(a.live, "GET", `/api/v1/episodes/${first}`);
    expect(one.body.status).toBe("importing");
    expect(one.body.queue).toEqual({ position: 1, ahead: 0 });
    const three = await s.call(a.live, "GET", `/api/v1/episodes/${third}`);
    expect(three.body.queue).toEqual({ position: 3, ahead: 2 });
    const list = await s.call(a.live, "GET", "/api/v1/episodes");
    const listed = list.body.episodes.find((e: { episode_id: string }) => e.episode_id === third);
    expect(listed.queue).toEqual({ position: 3, ahead: 2 });

    // A cancelled episode waits for nothing. (Its queued job still counts for those behind it until a
    // worker takes it and drops it at once: the count reads pg-boss's index alone, not the runs.)
    expect((await s.call(a.live, "POST", `/api/v1/episodes/${first}/cancel`)).status).toBe(200);
    expect((await s.call(a.live, "GET", `/api/v1/episodes/${first}`)).body.queue).toBeNull();
  });

  it("OpenAPI says the queue field is an extension", async () => {
    const doc = await (await fetch(`${s.base}/openapi.json`)).json();
    const text = JSON.stringify(doc);
    expect(text).toContain("jobs a worker takes before it");
    expect(text).toContain('"description":"Extension: where the waiting step stands');
  });
});
