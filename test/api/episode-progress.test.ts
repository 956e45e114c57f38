// GET /episodes/{id} while the import runs (issue 17): the duration is shown as soon as the probe
// step has read it, not only once the import ends, and the progress carries eta_seconds. The
// transcriber is the real pocketsphinx behind a gate, so the run is surely in its transcribe step.
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { gatedPocketsphinx, type GatedPocketsphinx } from "../helpers/gated-pocketsphinx.js";
import { TEST_MEDIA } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";

describe("episode progress while importing", () => {
  let s: ApiServer;
  let gate: GatedPocketsphinx;
  beforeAll(async () => {
    gate = await gatedPocketsphinx();
    s = await openApiServer("pglite", {
      transcribe: { engine: "pocketsphinx" },
      pocketsphinx: { command: gate.command },
    });
  }, 120_000);
  afterAll(async () => {
    await gate?.open();
    await s?.close();
    await gate?.cleanup();
  });

  it("shows the probed duration while transcribing, with eta_seconds in the progress", async () => {
    const a = await s.account({ plan: true });
    const created = await s.call(a.live, "POST", "/api/v1/episodes", { name: "JFK", file_name: "jfk.wav" });
    expect(created.status).toBe(202);
    const id = created.body.episode_id;
    const put = await fetch(created.body.upload.url, {
      method: "PUT",
      headers: created.body.upload.headers,
      body: await readFile(TEST_MEDIA.jfkWav),
    });
    expect(put.status).toBeLessThan(300);
    expect((await s.call(a.live, "POST", `/api/v1/episodes/${id}/uploaded`, {})).status).toBe(200);

    await waitFor(
      async () =>
        (
          await s.app.db.query(`select 1 from runs where origin_ref = $1 and current_stage = 'transcribe'`, [
            `episode:${id}`,
          ])
        ).rows.length > 0,
      { what: "the import run to reach transcribe", timeoutMs: 120_000 },
    );
    const during = await s.call(a.live, "GET", `/api/v1/episodes/${id}`);
    expect(during.status).toBe(200);
    expect(during.body).toMatchObject({
      status: "transcribing",
      duration: "00:11",
      progress: { stage: "transcribing" },
    });
    expect(during.body.duration_seconds).toBeCloseTo(11, 0);
    expect(during.body.progress).toHaveProperty("eta_seconds");

    await gate.open();
    const ready = await waitFor(
      async () => {
        const r = await s.call(a.live, "GET", `/api/v1/episodes/${id}`);
        return ["ready", "failed"].includes(r.body.status) ? r.body : undefined;
      },
      { what: "the episode to be ready", timeoutMs: 180_000, intervalMs: 250 },
    );
    expect(ready).toMatchObject({ status: "ready", duration: "00:11", progress: { percent: 100, eta_seconds: null } });
  });
});
