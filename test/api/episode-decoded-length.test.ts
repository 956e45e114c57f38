// An episode is charged by the audio it really holds, not by what its container claims (issue 27):
// jfk.wav as an M4A whose mvhd/mdhd say 10 799 s (ffprobe believes it) is transcribed as one chunk
// and charged the minimum for 11 s, and its run records both lengths.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ffprobeJson } from "../../daemon/render/ffmpeg.js";
import { useJfkApiServer, settleStatus, type ApiServer } from "../helpers/api.js";
import { lyingM4a } from "../helpers/bombs.js";

describe("an episode whose container header lies about its length", () => {
  let s: ApiServer;
  useJfkApiServer((x) => ({ s } = x));

  it("is charged and chunked by its decoded length, and records both lengths", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-lying-"));
    try {
      const file = await lyingM4a(dir, 10_799);
      // The lie is real: ffprobe reports three hours for the file.
      expect(Number((await ffprobeJson(file)).format.duration)).toBeGreaterThan(10_700);

      const a = await s.account({ creditCents: 2000 });
      const created = await s.call(a.live, "POST", "/api/v1/episodes", { name: "Liar", file_name: "liar.m4a" });
      expect(created.status).toBe(202);
      const id = created.body.episode_id;
      const put = await fetch(created.body.upload.url, {
        method: "PUT",
        headers: created.body.upload.headers,
        body: await readFile(file),
      });
      expect(put.status).toBeLessThan(300);
      expect((await s.call(a.live, "POST", `/api/v1/episodes/${id}/uploaded`, {})).status).toBe(200);
      const ready = await settleStatus(s, a.live, `/api/v1/episodes/${id}`, "ready");
      expect(ready.duration).toBe("00:11");

      // 11 s is one started minute at 5 cents, raised to the 25-cent minimum; 3 h would be 900.
      const ledger = await s.app.db.query(`select kind, cents from ledger where account_id = $1 and kind = 'episode'`, [
        a.accountId,
      ]);
      expect(ledger.rows.map((r: { cents: unknown }) => Number(r.cents))).toEqual([-25]);
      const ep = (
        await s.app.db.query(`select duration_seconds, charged_cents, run_id from episodes where id = $1`, [id])
      ).rows[0];
      expect(Number(ep.charged_cents)).toBe(25);
      expect(Number(ep.duration_seconds)).toBeCloseTo(11, 0);

      const run = (await s.app.db.query(`select output from runs where id = $1`, [ep.run_id])).rows[0];
      const output = typeof run.output === "string" ? JSON.parse(run.output) : run.output;
      expect(output.media.duration).toBeCloseTo(11, 0);
      expect(output.media.duration_header).toBeCloseTo(10_799, 0);
      expect(output.transcript.duration).toBeCloseTo(11, 0);
      expect(output.transcript.chunks).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
