// A kill inside the watch folder's take (PostgreSQL only: the window is forced with a table lock
// from a second connection). beginFile() in daemon/watch/begin.ts copies the file into storage
// (uploads/watch/<new id>/) and only then commits its run and watch_files row; the daemon is killed
// while that transaction waits on the lock. At the restart the file, still in processing/ with no
// row, was begun again under a new id: a second copy, and the first left under no row for good.
// The take's id now comes from the file itself (folder.ts takeId), so the restart overwrites it.
import { readdir } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { testBackends } from "../helpers/backends.js";
import { waitFor } from "../helpers/wait.js";
import { World } from "./kill-world.js";

const onPg = testBackends().includes("postgres");

describe.skipIf(!onPg)("kill -9 while the watch folder takes a file", () => {
  it("leaves one stored copy, the one its watch_files row names", async () => {
    const w = await World.open("postgres", "watch");
    const c = new pg.Client({ connectionString: w.d.databaseUrl });
    // pg_stat_activity is held for a whole transaction: the wait is watched from outside the locking one.
    const watch = new pg.Client({ connectionString: w.d.databaseUrl });
    try {
      await w.start();
      await c.connect();
      await watch.connect();
      // Blocks the insert of the file's watch_files row, not the reads of the folder's sweep.
      await c.query("begin");
      await c.query("lock table watch_files in share row exclusive mode");
      await w.submit({ n: 0, name: "take.wav" });
      await waitFor(
        async () =>
          (
            await watch.query(
              `select count(*)::int as n from pg_stat_activity where datname = current_database() ` +
                `and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
            )
          ).rows[0].n > 0,
        { what: "the daemon's take to wait on the lock", timeoutMs: 60_000, intervalMs: 50 },
      );
      await w.kill();
      await c.query("rollback");
      await w.start();
      const row = await waitFor(
        async () =>
          (await c.query(`select id from watch_files where name = 'take.wav'`)).rows[0] as { id: string } | undefined,
        {
          what: "the restarted daemon to take the file again",
          timeoutMs: 60_000,
        },
      );
      const copies = await readdir(path.join(w.dataDir, "storage", "uploads", "watch"));
      expect(copies).toEqual([row.id]);
    } finally {
      await c.end().catch(() => {});
      await watch.end().catch(() => {});
      await w.close(true);
    }
  }, 180_000);
});
