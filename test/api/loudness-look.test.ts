// Loudness as a look field of the account API, over real HTTP with a real import and render of
// jfk.wav: an export at −16 LUFS measures −16 (±1) in the file it makes; a restyle to "off" renders
// again without a new cut and names the change; save_as_default keeps it for GET /me; a level out
// of range is refused naming the field; a sidecar's or --set's `loudness` reaches the clip renders
// (caption-burn's level), not find-clips (whose `loudness` is whether to measure).
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { splitOptions } from "../../daemon/watch/followups.js";
import { inputSchemaOf } from "../../facade/mcp/tools.js";
import { exportClips, restyleClip } from "../../facade/operations/clips.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { until } from "../helpers/cli.js";
import { serveFile, startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { loudnessOf } from "../helpers/render-checks.js";

describe("loudness on clips", () => {
  let s: ApiServer;
  let media: TestHttpsServer;
  const dir = mkdtempSync(path.join(os.tmpdir(), "clipd-loudness-look-"));
  beforeAll(async () => {
    media = await startHttpsServer({ "/jfk.wav": serveFile(TEST_MEDIA.jfkWav, "audio/wav") });
    s = await openApiServer("pglite", { network: { allow_loopback: true, extra_ca: media.caPath } });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await media?.close();
  });

  const settle = async (key: string, p: string, ok: string) => {
    const body = await until(
      async () => {
        const r = await s.call(key, "GET", p);
        return [ok, "failed"].includes(r.body.status) ? r.body : undefined;
      },
      { timeoutMs: 240_000, intervalMs: 250, what: p },
    );
    expect(body.status, JSON.stringify(body.error ?? body.failure)).toBe(ok);
    return body;
  };
  const renderedFile = async (clipId: string, name: string) => {
    const rec = (await s.app.db.query(`select render from clips where id = $1`, [clipId])).rows[0].render;
    const file = path.join(dir, name);
    writeFileSync(file, await s.app.storage.read(rec.key));
    return { rec, file };
  };

  it("renders at the export's level, restyles without a cut, saves it as a default", async () => {
    const a = await s.account({ plan: true });
    expect((await s.call(a.live, "GET", "/api/v1/me")).body.defaults.loudness).toBe(-14);
    const ep = await s.call(a.live, "POST", "/api/v1/episodes", {
      source_url: media.url("/jfk.wav"),
      name: "loud",
      target_seconds: 15,
    });
    expect(ep.status, JSON.stringify(ep.body)).toBe(202);
    const episodeId = ep.body.episode_id as string;
    const ready = await settle(a.live, `/api/v1/episodes/${episodeId}`, "ready");
    const clipId = ready.clips[0].clip_id as string;

    const made = await s.call(a.live, "POST", `/api/v1/episodes/${episodeId}/clips`, { clips: [1], loudness: -16 });
    expect(made.status, JSON.stringify(made.body)).toBe(202);
    await settle(a.live, `/api/v1/jobs/${made.body.jobs[0].job_id}`, "completed");
    const first = await renderedFile(clipId, "minus16.mp4");
    expect(first.rec.loudness).toBe(-16);
    const level = loudnessOf(first.file);
    expect(Math.abs(level.lufs + 16), `measured ${level.lufs} LUFS`).toBeLessThanOrEqual(1);
    expect(level.truePeak).toBeLessThanOrEqual(-0.9);

    // A change of level renders again from the same cut, like a style change.
    const quiet = await s.call(a.live, "PATCH", `/api/v1/clips/${clipId}`, { loudness: -24 });
    expect(quiet.status, JSON.stringify(quiet.body)).toBe(202);
    expect(quiet.body.changes).toEqual(["loudness: -16 → -24"]);
    const job = (await s.app.db.query(`select kind from jobs where id = $1`, [quiet.body.job_id])).rows[0];
    expect(job.kind).toBe("render");
    await settle(a.live, `/api/v1/jobs/${quiet.body.job_id}`, "completed");
    const second = await renderedFile(clipId, "minus24.mp4");
    expect(second.rec.loudness).toBe(-24);
    expect(Math.abs(loudnessOf(second.file).lufs + 24)).toBeLessThanOrEqual(1);

    // off: the sound as recorded (jfk.wav is about −15 LUFS), kept as the account's default.
    const off = await s.call(a.live, "PATCH", `/api/v1/clips/${clipId}`, { loudness: "off", save_as_default: true });
    expect(off.status, JSON.stringify(off.body)).toBe(202);
    expect(off.body.changes).toEqual(["loudness: -24 → off"]);
    await settle(a.live, `/api/v1/jobs/${off.body.job_id}`, "completed");
    const third = await renderedFile(clipId, "off.mp4");
    expect(third.rec.loudness).toBe("off");
    expect(loudnessOf(third.file).lufs).toBeGreaterThan(-20);
    expect((await s.call(a.live, "GET", "/api/v1/me")).body.defaults.loudness).toBe("off");

    const bad = await s.call(a.live, "PATCH", `/api/v1/clips/${clipId}`, { loudness: -60 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("loudness");
  }, 600_000);

  it("is an argument of the MCP tools that export and restyle (from the same schema)", () => {
    for (const op of [exportClips, restyleClip])
      expect(inputSchemaOf(op).properties.loudness).toMatchObject({
        description: expect.stringMatching(/^Extension:/),
      });
  });

  it("sends a sidecar's or --set's loudness where its value fits", () => {
    const split = splitOptions(s.app.runner, "episode", { loudness: -16 });
    expect(split.renders.loudness).toBe(-16);
    expect(split.run.loudness).toBeUndefined();
    const measure = splitOptions(s.app.runner, "episode", { loudness: false });
    expect(measure.run.loudness).toBe(false);
    expect(measure.renders.loudness).toBeUndefined();
    expect(() => splitOptions(s.app.runner, "episode", { loudness: "loud" })).toThrow(/loudness/);
  });
});
