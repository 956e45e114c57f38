// GET /api/v1/episodes/{id} is kept until anything it shows may have changed (facade/read-cache.ts):
// every write of this process, by the API, a worker's progress or a direct statement, shows in the
// very next read; on PostgreSQL another process's commit shows once its notice has arrived.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../daemon/store/db.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";
import { waitFor } from "../helpers/wait.js";

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
    await t.app.db.transaction((tx) =>
      tx.query(`update episodes set name = 'third name' where id = $1`, [made.body.episode_id]),
    );
    expect((await t.call(acc.live, "GET", path)).body.name).toBe("third name");
    // Another account reading the same id is not answered from the first account's read.
    const other = await t.account();
    expect((await t.call(other.live, "GET", path)).status).toBe(404);
  });
});

describe.runIf(testBackends().includes("postgres"))("episode reads on postgres, written by another process", () => {
  let t: ApiServer;
  let acc: { accountId: string; live: string; test: string };
  beforeAll(async () => {
    t = await openApiServer("postgres");
    acc = await t.account({ creditCents: 10_000 });
  });
  afterAll(() => t?.close());

  it("are kept, and dropped by the notice of another process's commit", async () => {
    const made = await t.call(acc.live, "POST", "/api/v1/episodes", { name: "kept", file_name: "talk.mp3" });
    const id: string = made.body.episode_id;
    const path = `/api/v1/episodes/${id}`;
    const url = t.app.db.raw.connectionString!;
    // The count exists once this process hears other writers' notices (opened on first use).
    await waitFor(async () => (await t.call(acc.live, "GET", path), t.app.db.writes?.() !== undefined), {
      what: "the change notices' session",
    });
    expect((await t.call(acc.live, "GET", path)).body.name).toBe("kept");

    // A write that sends no notice (triggers off for its session) is not seen: the read is kept.
    const quiet = new pg.Client({ connectionString: url });
    await quiet.connect();
    try {
      await quiet.query("set session_replication_role = replica");
      await quiet.query("update episodes set name = 'unseen' where id = $1", [id]);
    } finally {
      await quiet.end();
    }
    expect((await t.call(acc.live, "GET", path)).body.name).toBe("kept");

    // Another process (its own pool and count) commits: its notice drops the kept read.
    const other = await openPostgres(url, { max: 1 });
    try {
      await other.transaction((tx) => tx.query("update episodes set name = 'changed elsewhere' where id = $1", [id]));
      await waitFor(async () => (await t.call(acc.live, "GET", path)).body.name === "changed elsewhere", {
        what: "the other process's change in the read",
      });
    } finally {
      await other.close();
    }
  });
});
