// A clip's pace against real speech and real ffmpeg: espeak-ng reads four sentences, each trimmed
// to its sounds and joined by silences of known length (0.6, 0.9 and 0.6 s), over a testsrc2
// picture; the words get times spread over each sentence's known span. With `tight` every pause
// over 0.4 s is cut to about 0.15 s: the rendered clip is shorter by the removed silence, no gap
// between the re-timed words is over 0.2 s, and the burned captions (the ASS) start each sentence
// where its speech starts again in the rendered clip. `off` keeps one piece.
import { afterEach, describe, expect, it } from "vitest";
import captionBurn from "../../plugins/caption-burn/index.js";
import cut from "../../plugins/cut/index.js";
import { onePiece, splitAtGaps } from "../../daemon/render/pace.js";
import { paceFixture as makePaceFixture, seconds, silencesOf, type W } from "../helpers/pace-fixture.js";
import { frameAt } from "../helpers/brand-render.js";
import { gallery, soundOf } from "../helpers/gallery.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

const SENTENCES = [
  "Short clips need a steady rhythm.",
  "Long pauses make viewers scroll away.",
  "So we cut the silence between the words.",
  "The captions must stay on every word.",
];
const PAUSES = [0.6, 0.9, 0.6];
const LEAD = 0.3;

type Cut = { cut: { key: string; words_key: string; pace: string; pieces: Array<{ start: number; end: number }> } };
type Render = { render: { key: string; ass_key: string } };
const paceFixture = () => makePaceFixture(SENTENCES, PAUSES, LEAD);
/** Where speech starts again after each silence of at least 0.1 s in a rendered file (seconds). */
const speechOnsets = (file: string) => silencesOf(file, 0.1).map((s) => s.end);

/** ASS Dialogue start times (seconds). */
const assStarts = (ass: string) =>
  [...ass.matchAll(/^Dialogue: \d+,(\d+):(\d+):(\d+\.\d+),/gm)].map((m) => +m[1]! * 3600 + +m[2]! * 60 + +m[3]!);

describe("a clip's pace", () => {
  let ctx: TestStageCtx | undefined;
  afterEach(async () => {
    await ctx?.cleanup();
    ctx = undefined;
  });

  it("splits only at gaps over 0.4 s and joins all pieces for off (word times alone)", () => {
    const w = (start: number, end: number) => ({ text: "x", start, end });
    const words = [w(0, 0.5), w(0.8, 1), w(1.45, 2), w(2.1, 3)];
    expect(splitAtGaps({ start: 0, end: 3 }, words)).toEqual([
      { start: 0, end: 1 },
      { start: 1.45, end: 3 },
    ]);
    expect(
      onePiece([
        { start: 1, end: 2 },
        { start: 4, end: 5 },
      ]),
    ).toEqual([{ start: 1, end: 5 }]);
  });

  async function render(pace: string) {
    const f = paceFixture();
    ctx = await makeStageCtx({ pace, width: 360, crop_focus: "attention", style: "bold-punch" });
    await ctx.storage.putFile("runs/r/source.mp4", f.video);
    await ctx.storage.write("runs/r/transcript.json", JSON.stringify({ words: f.words, segments: [] }));
    const end = +(f.duration - LEAD / 2).toFixed(3);
    const input = {
      source: { key: "runs/r/source.mp4", name: "source.mp4", bytes: 1 },
      media: { duration: f.duration, kind: "video", width: 640, height: 360, rotation: 0, has_audio: true },
      transcript: { key: "runs/r/transcript.json", engine: "test", language: "en", duration: f.duration, files: {} },
      // The clip as the finder makes it for this speech: one piece (no pause reaches 1.2 s).
      clip: { ref: "pace01", number: 1, title: "Pace", start: 0.1, end, pieces: [{ start: 0.1, end }] },
    };
    const c = (await cut.run(input, ctx)) as unknown as Cut;
    const r = (await captionBurn.run({ ...input, cut: c.cut }, ctx)) as unknown as Render;
    const doc = JSON.parse((await ctx.storage.read(c.cut.words_key)).toString("utf8"));
    const ass = (await ctx.storage.read(r.render.ass_key)).toString("utf8");
    return { f, cut: c.cut, file: ctx.fileOf(r.render.key), words: doc.words as W[], ass };
  }

  it("tight cuts each pause to about 0.15 s, and the captions stay on their words", async () => {
    const natural = await render("natural");
    const naturalSeconds = seconds(natural.file);
    const naturalSound = soundOf(natural.file, Math.round(naturalSeconds * 80));
    expect(natural.cut.pieces).toHaveLength(1);
    await ctx!.cleanup();

    const tight = await render("tight");
    // The sound before and after: the same words, the pauses between them shortened.
    await gallery("case-tight-pace", [
      frameAt(tight.file, 1),
      naturalSound,
      soundOf(tight.file, Math.round(seconds(tight.file) * 80)),
    ]);
    const tightSeconds = seconds(tight.file);
    expect(tight.cut.pace).toBe("tight");
    expect(tight.cut.pieces).toHaveLength(4);
    const removed = PAUSES.reduce((a, p) => a + (p - 0.15), 0);
    console.info(`pace: natural ${naturalSeconds} s, tight ${tightSeconds} s, pauses removed ${removed.toFixed(2)} s`);
    expect(Math.abs(naturalSeconds - tightSeconds - removed), `${naturalSeconds} → ${tightSeconds}`).toBeLessThan(0.1);

    // Every gap left between words is the kept 0.15 s (a frame of slack).
    const gaps = tight.words.slice(1).map((w, i) => +(w.start - tight.words[i]!.end).toFixed(3));
    console.info(`pace: gaps between words after tight ${JSON.stringify(gaps.filter((g) => g > 0))}`);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(0.2);
    expect(tight.words.map((w) => w.text)).toEqual(SENTENCES.join(" ").split(" "));

    // The captions: every cue starts on a re-timed word, and each sentence's first word is where
    // speech starts again in the rendered clip.
    const wordStarts = tight.words.map((w) => w.start);
    // A first cue within a second of the start shows from frame 0 (ass.ts), not at its word.
    for (const at of assStarts(tight.ass).filter((t) => t > 0 || wordStarts[0]! > 1))
      expect(Math.min(...wordStarts.map((s) => Math.abs(s - at))), `cue at ${at}`).toBeLessThanOrEqual(0.011);
    let n = 0;
    const firsts = SENTENCES.map((s) => {
      const w = tight.words[n]!;
      n += s.split(" ").length;
      return w.start;
    });
    const onsets = speechOnsets(tight.file);
    for (const first of firsts.slice(1))
      expect(Math.min(...onsets.map((o) => Math.abs(o - first))), `sentence at ${first}`).toBeLessThanOrEqual(0.06);
  });

  it("off keeps the whole span as one piece", async () => {
    const f = paceFixture();
    ctx = await makeStageCtx({ pace: "off", width: 360, crop_focus: "center" });
    await ctx.storage.putFile("runs/r/source.mp4", f.video);
    await ctx.storage.write("runs/r/transcript.json", JSON.stringify({ words: f.words, segments: [] }));
    // Two pieces with the first pause's middle cut out, as a finder's pause cut would leave them.
    const mid = f.starts[1]! - PAUSES[0]! / 2;
    const end = +f.starts[2]!.toFixed(3);
    const out = (await cut.run(
      {
        source: { key: "runs/r/source.mp4", name: "source.mp4", bytes: 1 },
        media: { duration: f.duration, kind: "video", width: 640, height: 360, rotation: 0, has_audio: true },
        transcript: { key: "runs/r/transcript.json" },
        clip: {
          ref: "pace02",
          start: 0.1,
          end,
          pieces: [
            { start: 0.1, end: +(mid - 0.1).toFixed(3) },
            { start: +(mid + 0.1).toFixed(3), end },
          ],
        },
      },
      ctx,
    )) as unknown as Cut;
    expect(out.cut.pieces).toEqual([{ start: 0.1, end }]);
    expect(Math.abs(seconds(ctx.fileOf(out.cut.key)) - (end - 0.1))).toBeLessThan(0.1);
  });
});
