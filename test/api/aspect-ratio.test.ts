// aspect_ratio over the account API on loopback, with real renders of the short jfk.wav: an export
// names a shape and a colour of its own, a restyle to another shape cuts again and reports it, a
// shape outside the list is refused by name, and save_as_default makes it the account's default.
import { describe, expect, it } from "vitest";
import { probeMedia } from "../../daemon/render/render.js";
import { settleStatus, useJfkApiServer, type ApiServer } from "../helpers/api.js";
import { storedPath } from "../helpers/stage-ctx.js";
import type { TestHttpsServer } from "../helpers/https-server.js";

describe("aspect_ratio through the account API", () => {
  let s: ApiServer;
  let media: TestHttpsServer;
  useJfkApiServer((x) => ({ s, media } = x));

  const settle = (key: string, path: string, ok: string) => settleStatus(s, key, path, ok);
  const rendered = async (clipId: string) => {
    const { rows } = await s.app.db.query(`select cut, render from clips where id = $1`, [clipId]);
    const got = await probeMedia(storedPath(s.app.storage, rows[0].render.key));
    return { cut: rows[0].cut, size: [got.width, got.height] };
  };

  it("exports in a shape, restyles to another by cutting again, refuses others " +
    "by name and saves it as a default", async () => {
    const a = await s.account({ plan: true });
    const ep = await s.call(a.live, "POST", "/api/v1/episodes", {
      source_url: media.url("/jfk.wav"),
      name: "shapes",
      target_seconds: 15,
    });
    expect(ep.status, JSON.stringify(ep.body)).toBe(202);
    await settle(a.live, `/api/v1/episodes/${ep.body.episode_id}`, "ready");

    const made = await s.call(a.live, "POST", `/api/v1/episodes/${ep.body.episode_id}/clips`, {
      clips: [1],
      aspect_ratio: "16:9",
      background: "#336699",
    });
    expect(made.status, JSON.stringify(made.body)).toBe(202);
    const job = made.body.jobs[0];
    await settle(a.live, `/api/v1/jobs/${job.job_id}`, "completed");
    const first = await rendered(job.clip_id);
    expect(first.size).toEqual([1920, 1080]);
    expect(first.cut).toMatchObject({ aspect_ratio: "16:9", width: 1920, height: 1080 });

    const bad = await s.call(a.live, "PATCH", `/api/v1/clips/${job.clip_id}`, { aspect_ratio: "2:1" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toContain("aspect_ratio");

    const square = await s.call(a.live, "PATCH", `/api/v1/clips/${job.clip_id}`, {
      aspect_ratio: "1:1",
      save_as_default: true,
    });
    expect(square.status, JSON.stringify(square.body)).toBe(202);
    expect(square.body.changes).toEqual(["aspect_ratio: 16:9 → 1:1"]);
    expect(square.body.message).toMatch(/^cutting and rendering/);
    await settle(a.live, `/api/v1/jobs/${square.body.job_id}`, "completed");
    expect((await rendered(job.clip_id)).size).toEqual([1080, 1080]);
    expect((await s.call(a.live, "GET", "/api/v1/me")).body.defaults).toMatchObject({
      aspect_ratio: "1:1",
      background: "#336699",
    });
  }, 600_000);
});
