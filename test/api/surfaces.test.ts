// Every run records the surface its work came from (runs.origin), and the account rules read it:
// an episode started from the website and searched from the tool server settles exactly like one
// from the API (its run ends are the episode service's), and a stage's raw events from any
// account surface stay undelivered while the watch folder's and the CLI's are delivered.
import { describe, expect, it } from "vitest";
import { accountStageEvent } from "../../daemon/account/stage-events.js";
import { ACCOUNT_SURFACES } from "../../daemon/account/surfaces.js";
import type { Run } from "../../daemon/engine/runner.js";
import { useJfkApiServer, type ApiServer } from "../helpers/api.js";
import type { TestHttpsServer } from "../helpers/https-server.js";
import { waitFor } from "../helpers/wait.js";

describe("the surface a request came through", () => {
  let s: ApiServer;
  let media: TestHttpsServer;
  useJfkApiServer((x) => ({ s, media } = x));

  const origins = async (ref: string) =>
    (
      await s.app.db.query(`select pipeline, origin from runs where origin_ref = $1 order by created_at`, [ref])
    ).rows.map((r: any) => `${r.pipeline}:${r.origin}`);
  const episodeStatus = (accountId: string, id: string, want: string) =>
    waitFor(
      async () => {
        const ep = await s.app.episodes.get(accountId, id);
        if (ep?.status === "failed") throw new Error(`episode failed: ${JSON.stringify(ep)}`);
        return ep?.status === want ? ep : undefined;
      },
      { what: `episode ${id} to be ${want}`, timeoutMs: 180_000, intervalMs: 200 },
    );

  it("records api for HTTP calls", async () => {
    const acc = await s.account({ creditCents: 1000 });
    const r = await s.call(acc.live, "POST", "/api/v1/episodes", { source_url: media.url("/jfk.wav") });
    expect(r.status).toBe(202);
    expect(await origins(`episode:${r.body.episode_id}`)).toEqual(["api-episode:api"]);
  });

  it("settles work from the website and the tool server like work from the API", async () => {
    const acc = await s.account({ creditCents: 1000 });
    const ep = await s.app.episodes.create({
      accountId: acc.accountId,
      name: "from the site",
      sourceUrl: media.url("/jfk.wav"),
      options: {},
      origin: "web",
    });
    await episodeStatus(acc.accountId, ep.id, "ready");
    // The import's end started the search on the same surface.
    expect(await origins(`episode:${ep.id}`)).toEqual(["api-episode:web"]);
    expect(await origins(`search:${ep.id}`)).toEqual(["api-search:web"]);

    const again = await s.app.episodes.search(acc.accountId, ep.id, { about: "the country", origin: "chat" });
    expect(again.status).toBe("searching");
    const done = await episodeStatus(acc.accountId, ep.id, "ready");
    expect(done.searches.map((x) => x.state)).toEqual(["succeeded", "succeeded"]);
    expect(await origins(`search:${ep.id}`)).toEqual(["api-search:web", "api-search:chat"]);
  });

  it("delivers a stage's raw events only for work from outside the account surfaces", () => {
    const run = (origin: string) => ({ origin, origin_ref: "x", input: { account_id: "acc" } }) as unknown as Run;
    const event = { type: "clip.ready", data: { n: 1 } };
    for (const origin of ACCOUNT_SURFACES) expect(accountStageEvent(run(origin), event as any).deliver).toBe(false);
    for (const origin of ["watch", "cli"]) {
      const out = accountStageEvent(run(origin), event as any);
      expect(out.deliver).toBeUndefined();
      expect(out.data).toMatchObject({ origin, origin_ref: "x" });
    }
  });
});
