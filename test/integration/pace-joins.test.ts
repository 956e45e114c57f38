// `pace: tight` on the joins the clip finder makes (issue 39, item 1). Four espeak-ng sentences
// with pauses of 0.5, 1.6 and 0.7 s: the finder's own code (toPieces, then the audio check of
// confirmClipGaps) cuts the 1.6 s pause and leaves a join with silence each side of it. The clip
// is rendered natural and tight, and the gaps are measured on the rendered files with
// silencedetect: under tight no silence inside the clip is longer than the kept 0.15 s (with a
// frame of slack), the join included; the speech itself (the file less its silences) is as long
// as under natural, so no word lost a sound.
import { afterEach, describe, expect, it } from "vitest";
import captionBurn from "../../plugins/caption-burn/index.js";
import cut from "../../plugins/cut/index.js";
import { toPieces } from "../../plugins/find-clips/pieces.js";
import { confirmClipGaps } from "../../plugins/find-clips/gaps.js";
import { paceFixture, seconds, silencesOf } from "../helpers/pace-fixture.js";
import { gallery, soundOf } from "../helpers/gallery.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

const SENTENCES = [
  "Every pause costs us viewers.",
  "The joins must be tight as well.",
  "Then the clip moves along.",
  "And every word stays whole.",
];
const PAUSES = [0.5, 1.6, 0.7];
const LEAD = 0.3;

type Cut = { cut: { key: string; pieces: Array<{ start: number; end: number }> } };

describe("tight pace at the finder's joins", () => {
  let ctx: TestStageCtx | undefined;
  afterEach(async () => {
    await ctx?.cleanup();
    ctx = undefined;
  });

  it("leaves no silence over 0.2 s inside the rendered clip, joins included, and keeps the speech", async () => {
    const f = paceFixture(SENTENCES, PAUSES, LEAD);
    const bounds = { start: 0.1, end: +(f.duration - LEAD / 2).toFixed(3) };
    ctx = await makeStageCtx();
    const [found] = await confirmClipGaps(
      [{ ...bounds, duration: bounds.end - bounds.start, pieces: toPieces(f.words, bounds) }],
      f.video,
      { workdir: ctx.workdir },
    );
    await ctx.cleanup();
    // The finder cut the long pause only: one join.
    expect(found!.pieces).toHaveLength(2);

    const render = async (pace: string) => {
      ctx = await makeStageCtx({ pace, width: 360, crop_focus: "center", style: "bold-punch" });
      await ctx.storage.putFile("runs/r/source.mp4", f.video);
      await ctx.storage.write("runs/r/transcript.json", JSON.stringify({ words: f.words, segments: [] }));
      const input = {
        source: { key: "runs/r/source.mp4", name: "source.mp4", bytes: 1 },
        media: { duration: f.duration, kind: "video", width: 640, height: 360, rotation: 0, has_audio: true },
        transcript: { key: "runs/r/transcript.json", engine: "test", language: "en", duration: f.duration, files: {} },
        clip: { ref: "join01", number: 1, title: "Joins", ...bounds, pieces: found!.pieces },
      };
      const c = (await cut.run(input, ctx)) as unknown as Cut;
      const r = (await captionBurn.run({ ...input, cut: c.cut }, ctx)) as unknown as { render: { key: string } };
      const file = ctx.fileOf(r.render.key);
      const length = seconds(file);
      // Pauses (0.1 s or more) wholly inside the clip: the lead and the tail are not gaps, and the
      // short stops inside a sentence are not pauses.
      const gaps = silencesOf(file, 0.1).filter((s) => s.start > 0.02 && s.end < length - 0.02);
      const silent = silencesOf(file).reduce((a, s) => a + (s.end - s.start), 0);
      const picture = soundOf(file, Math.round(length * 80));
      await ctx.cleanup();
      ctx = undefined;
      return { pieces: c.cut.pieces, length, gaps, speech: length - silent, picture };
    };
    const natural = await render("natural");
    const tight = await render("tight");
    await gallery("case-tight-joins", [natural.picture, tight.picture]);
    const show = (gs: Array<{ start: number; end: number }>) => gs.map((g) => +(g.end - g.start).toFixed(3));
    console.info(
      `pace joins: natural ${natural.length} s gaps ${JSON.stringify(show(natural.gaps))}; ` +
        `tight ${tight.length} s gaps ${JSON.stringify(show(tight.gaps))}; ` +
        `speech ${natural.speech.toFixed(3)} → ${tight.speech.toFixed(3)} s`,
    );
    // Natural keeps the finder's join with its silence each side (the trial's 0.55–0.67 s).
    expect(Math.max(...show(natural.gaps))).toBeGreaterThan(0.4);
    // Tight: every gap, the join included, is the kept 0.15 s and a frame of slack at most.
    expect(tight.gaps.length).toBe(PAUSES.length);
    expect(Math.max(...show(tight.gaps))).toBeLessThanOrEqual(0.2);
    // The speech is all there: only silence went.
    expect(Math.abs(tight.speech - natural.speech)).toBeLessThan(0.05);
    const removed = natural.length - tight.length;
    const expected = show(natural.gaps).reduce((a, g) => a + Math.max(0, g - 0.15), 0);
    expect(Math.abs(removed - expected), `removed ${removed} of ${expected}`).toBeLessThan(0.1);
  });
});
