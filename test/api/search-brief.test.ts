// POST /episodes/{id}/search with a brief whose answer is a clip already on the episode's list:
// the search marks that clip rather than adding a leftover span, and asking the same brief again
// answers "done" with that clip, its number and ref unchanged.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { useJfkApiServer, type ApiServer } from "../helpers/api.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";

describe("account API: a brief answered by a clip already found", () => {
  let s: ApiServer;
  useJfkApiServer((x) => ({ s } = x));

  const waitReady = async (key: string, id: string) => {
    const r = await waitFor(
      async () => {
        const r = await s.call(key, "GET", `/api/v1/episodes/${id}`);
        return r.status !== 200 || ["ready", "failed"].includes(r.body.status) ? r : undefined;
      },
      { what: `episode ${id} to be ready`, timeoutMs: 150_000, intervalMs: 250 },
    );
    expect(r.body.status).toBe("ready");
    return r.body;
  };

  it("returns the listed clip, with its number and ref, as the brief's answer", async () => {
    const a = await s.account({ plan: true });
    const created = await s.call(a.live, "POST", "/api/v1/episodes", {
      name: "JFK",
      file_name: "jfk.wav",
      target_seconds: 15,
    });
    const id = created.body.episode_id;
    await fetch(created.body.upload.url, {
      method: "PUT",
      headers: created.body.upload.headers,
      body: await readFile(TEST_MEDIA.jfkWav),
    });
    expect((await s.call(a.live, "POST", `/api/v1/episodes/${id}/uploaded`, {})).status).toBe(200);
    const found = await waitReady(a.live, id);
    expect(found.clips.length).toBeGreaterThanOrEqual(1);
    const listed = found.clips[0];

    // The brief is about what the one clip says ("ask not what your country can do for you").
    const search = await s.call(a.live, "POST", `/api/v1/episodes/${id}/search`, {
      about: "what you can do for your country",
    });
    expect(search.status).toBe(202);
    expect(search.body.status).toBe("searching");
    const after = await waitReady(a.live, id);
    expect(after.clips.map((c: any) => c.ref)).toEqual(found.clips.map((c: any) => c.ref));
    expect(after.clips[0]).toMatchObject({
      number: listed.number,
      ref: listed.ref,
      answers: ["what you can do for your country"],
    });

    const done = await s.call(a.live, "POST", `/api/v1/episodes/${id}/search`, {
      about: "what you can do for your country",
    });
    expect(done.status).toBe(202);
    expect(done.body.status).toBe("done");
    expect(done.body.clips[0]).toMatchObject({
      clip_id: listed.clip_id,
      number: listed.number,
      ref: listed.ref,
      title: listed.title,
    });
  });
});
