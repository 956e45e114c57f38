// An Idempotency-Key's answer commits with the work it guards. A process killed right after the
// work of POST /api/v1/episodes committed (a named crash point) leaves a key that replays that
// work after a restart, never a key stuck answering 409; and a "running" record left by a
// request that died before its work committed is taken over by a retry.
import { afterEach, describe, expect, it } from "vitest";
import { openDb } from "../../daemon/store/db.js";
import { testBackends } from "../helpers/backends.js";
import { runClipd, spawnClipd, type Spawned } from "../helpers/cli.js";
import { daemonEnv } from "../helpers/daemon-config.js";

const lastJson = (out: string) => JSON.parse(out.trim().split("\n").pop()!);

describe.each(testBackends())("idempotency across a crash on %s", (backend) => {
  const procs: Spawned[] = [];
  afterEach(() => procs.forEach((p) => p.kill("SIGKILL")));

  it(
    "replays work that committed just before the process died, and takes over " + "a key whose request died first",
    async () => {
      const d = await daemonEnv(backend);
      const acc = lastJson(
        (await runClipd(["account", "create", "--email", "crash-idem@example.com", "--plan"], d.env)).output,
      );
      const live = lastJson(
        (
          await runClipd(
            ["key", "create", "--account", acc.account_id, "--mode", "live", "--scopes", "clips.read,clips.write"],
            d.env,
          )
        ).output,
      ).key;
      const post = (base: string, key: string) =>
        fetch(`${base}/api/v1/episodes`, {
          method: "POST",
          headers: { authorization: `Bearer ${live}`, "content-type": "application/json", "idempotency-key": key },
          body: JSON.stringify({ name: "Crash test" }),
        });

      // 1. The process dies after the handler's work committed, before anything else runs.
      const first = spawnClipd(["start"], { ...d.env, CLIPD_FAULTS: "after-handler:createEpisode" });
      procs.push(first);
      const base1 = (await first.waitFor(/is up: (http:\/\/[\d.:]+)/, 90_000))[1]!;
      await expect(post(base1, "crash-key-1")).rejects.toThrow();
      await first.exited;

      // A record left "running" by a request that died before its work committed.
      const db = await openDb({ databaseUrl: d.databaseUrl, dataDir: d.dataDir });
      try {
        await db.query(
          `insert into idempotency (account_id, livemode, key, request_hash, state, ` +
            `created_at) values ($1, true, 'crash-key-2', $2, 'running', now() - interval '10 minutes')`,
          [
            acc.account_id,
            (await import("../../facade/idempotency.js")).requestHash("POST", "/api/v1/episodes", {
              name: "Crash test",
            }),
          ],
        );
      } finally {
        await db.close();
      }

      const second = spawnClipd(["start"], d.env);
      procs.push(second);
      const base2 = (await second.waitFor(/is up: (http:\/\/[\d.:]+)/, 90_000))[1]!;
      const replay = await post(base2, "crash-key-1");
      expect(replay.status).toBe(202);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      const replayed = (await replay.json()) as any;
      const taken = await post(base2, "crash-key-2");
      expect(taken.status).toBe(202);
      expect(taken.headers.get("idempotent-replayed")).toBeNull();
      const fresh = (await taken.json()) as any;
      expect(fresh.episode_id).not.toBe(replayed.episode_id);

      const list = (await (
        await fetch(`${base2}/api/v1/episodes`, { headers: { authorization: `Bearer ${live}` } })
      ).json()) as any;
      expect(list.episodes.map((e: any) => e.episode_id).sort()).toEqual(
        [replayed.episode_id, fresh.episode_id].sort(),
      );
      second.kill("SIGTERM");
      expect(await second.exited).toBe(0);
    },
  );
});
