// GET /api/v1/episodes/{id} is kept on PGlite until anything is written (facade/read-cache.ts):
// every write, by the API, a worker's progress or a direct statement, shows in the very next read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";

describe.each(testBackends())("episode reads on %s", (backend) => {
  let t: ApiServer;
  let acc: { accountId: string; live: string; test: string };
  beforeAll(async () => {
    t = await openApiServer(backend);
    acc = await t.account({ creditCents: 10_000 });
  });
  afterAll(() => t?.close());

  it("show each write in the next read, however often the episode was read before", async () => {
    const made = await t.call(acc.live, "POST", "/api/v1/episodes", { name: "first name", file_name: "talk.mp3" });
    expect(made.status).toBe(202);
    const path = `/api/v1/episodes/${made.body.episode_id}`;
    for (let i = 0; i < 3; i++) expect((await t.call(acc.live, "GET", path)).body.name).toBe("first name");
    await t.app.db.query(`update episodes set name = 'second name' where id = $1`, [made.body.episode_id]);
    expect((await t.call(acc.live, "GET", path)).body.name).toBe("second name");
    await t.app.db.transaction((tx) => tx.query(`update episodes set name = 'third name' where id = $1`, [made.body.episode_id]));
    expect((await t.call(acc.live, "GET", path)).body.name).toBe("third name");
    // Another account reading the same id is not answered from the first account's read.
    const other = await t.account();
    expect((await t.call(other.live, "GET", path)).status).toBe(404);
  });
});
