// The transcribe stage on every core (issue 17): a short recording is split into at least as many
// chunks as run at once, and its progress moves through every phase and every chunk, never
// backwards and never by more than one chunk's share. Real ffmpeg, real pocketsphinx.
import { readdir } from "node:fs/promises";
import os from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import stage from "../../plugins/transcribe/index.js";
import type { Transcript } from "../../daemon/render/captions.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";
import { speechFixture } from "../fixtures/speech.js";

let ctx: TestStageCtx | undefined;
afterEach(async () => {
  await ctx?.cleanup();
  ctx = undefined;
});

interface Report {
  pct: number;
  note: string;
  eta?: number;
}

async function transcribe(file: string, options: Record<string, unknown>) {
  ctx = await makeStageCtx({ engine: "pocketsphinx", ...options });
  const reports: Report[] = [];
  ctx.progress = (pct, note, eta) => void reports.push({ pct, note: note ?? "", eta });
  const key = `runs/${ctx.runId}/source.wav`;
  await ctx.storage.putFile(key, file);
  const out = await stage.run({ source: { key } }, ctx);
  const chunks = (await readdir(ctx.workdir)).filter((f) => /^chunk-\d+\.wav$/.test(f)).length;
  const doc = JSON.parse((await ctx.storage.read(out.transcript.key)).toString()) as Transcript;
  return { out, doc, reports, chunks };
}

describe("transcribe on every core", () => {
  it("splits a 45-second recording into a chunk per core (floor 15 s) and stitches the words in order", async () => {
    const speech = await speechFixture({ seconds: 45 });
    const cores = os.availableParallelism();
    const { doc, chunks } = await transcribe(speech.file, {});
    expect(chunks).toBeGreaterThanOrEqual(Math.min(cores, 3));
    // Four at once asked on any machine: the floor allows three chunks of 15 s in 45 s.
    const four = await transcribe(speech.file, { concurrency: 4 });
    expect(four.chunks).toBe(3);
    for (const d of [doc, four.doc]) {
      expect(d.words.length).toBeGreaterThan(20);
      for (let i = 1; i < d.words.length; i++) expect(d.words[i]!.start).toBeGreaterThanOrEqual(d.words[i - 1]!.start);
      expect(d.words.at(-1)!.end).toBeLessThanOrEqual(d.duration);
    }
  });

  it(
    "reports steady progress: every phase, every chunk, monotonic, no jump " + "over one chunk's share, a time left",
    async () => {
      const speech = await speechFixture({ seconds: 45 });
      const { reports, chunks } = await transcribe(speech.file, { concurrency: 3 });
      expect(chunks).toBe(3);
      const pcts = reports.map((r) => r.pct);
      for (let i = 1; i < pcts.length; i++)
        expect(pcts[i], `report ${i}: ${reports[i]!.note}`).toBeGreaterThanOrEqual(pcts[i - 1]!);
      expect(pcts.at(-1)).toBe(100);
      // The chunks share 8–95%; no report moves more than one chunk's worth of that.
      const share = 87 / chunks;
      for (let i = 1; i < pcts.length; i++)
        expect(pcts[i]! - pcts[i - 1]!, reports[i]!.note).toBeLessThanOrEqual(share + 0.5);
      // Decoding and finding silences reports ffmpeg's own progress, not one note held throughout.
      expect(reports.filter((r) => r.note.startsWith("decoding audio and finding silences:")).length).toBeGreaterThan(
        0,
      );
      // Every chunk is seen ending, and progress moves inside chunks before the first one ends.
      for (let k = 1; k <= chunks; k++)
        expect(
          reports.some((r) => r.note.endsWith(`${k} of ${chunks} chunks done`)),
          `chunk ${k}`,
        ).toBe(true);
      const within = reports.filter((r) => r.note.endsWith(`0 of ${chunks} chunks done`) && r.pct > 8);
      expect(within.length).toBeGreaterThan(0);
      // Once audio has been transcribed, the stage estimates the time left.
      expect(reports.some((r) => r.note.startsWith("transcribing") && typeof r.eta === "number" && r.eta >= 0)).toBe(
        true,
      );
    },
  );
});
