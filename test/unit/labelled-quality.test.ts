// The heuristic over the labelled set (test/fixtures/labelled), through the find-clips stage itself,
// held to a loose bar well under the goals: a floor that catches a scorer that has lost its
// way, not a target. The numbers are read in bench/find-clips (docs/benchmarks.md, Clip finding).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  answerOf,
  average,
  briefAccuracy,
  finds,
  loadLabelled,
  measureTop,
  onBoundaries,
  splitSet,
  stageRunner,
  type Labelled,
  type Measures,
} from "../../bench/find-clips.js";

const set = loadLabelled();
// Only the tuning half is run here: the held-out half is judged by its aggregate in the bench alone.
const tune = splitSet(set).tune;
let runner: Awaited<ReturnType<typeof stageRunner>>;
const rows: Measures[] = [];

beforeAll(async () => {
  runner = await stageRunner();
  for (const t of tune) {
    const clips = await runner.run(t, {});
    const api = [];
    for (const b of t.briefs ?? []) api.push(answerOf(await runner.run(t, { about: b.about }, clips), clips, b.about));
    rows.push({ ...measureTop(clips, t), briefApi: briefAccuracy(t, api), briefFresh: null });
  }
}, 600_000);
afterAll(() => runner?.close());

describe("the labelled set", () => {
  it(
    "is at least ten episodes of 10–15 minutes, each with 2–4 moments, decoys, " + "a sponsor read and three briefs",
    () => {
      const long = set.filter((t) => t.duration >= 600 && t.duration <= 900);
      expect(long.length).toBeGreaterThanOrEqual(10);
      for (const t of long) {
        expect(t.labels.length, t.name).toBeGreaterThanOrEqual(2);
        expect(t.labels.length, t.name).toBeLessThanOrEqual(4);
        expect(t.decoys?.length, t.name).toBeGreaterThan(0);
        expect(t.sponsor?.length, t.name).toBeGreaterThan(0);
        expect(t.briefs?.length, t.name).toBe(3);
      }
      expect(long.some((t) => t.words.every((w) => w.text === w.text.toLowerCase() && !/[.,?!]/.test(w.text)))).toBe(
        true,
      );
    },
  );

  it("is scored by rules that tell a found moment from a near miss", () => {
    const moment = { start: 100, end: 160 };
    expect(finds({ start: 90, end: 150 }, moment)).toBe(true);
    expect(finds({ start: 135, end: 200 }, moment)).toBe(false); // covers under half
    expect(finds({ start: 40, end: 190 }, moment)).toBe(false); // more than twice as long
    const t: Pick<Labelled, "words" | "sentences"> = {
      words: [
        { text: "One", start: 0, end: 0.3 },
        { text: "two.", start: 0.4, end: 0.7 },
        { text: "Three", start: 1.2, end: 1.5 },
        { text: "four.", start: 1.6, end: 1.9 },
      ],
      sentences: [
        { start: 0, end: 0.7 },
        { start: 1.2, end: 1.9 },
      ],
    };
    expect(onBoundaries({ start: 1.1, end: 2.0 }, t)).toBe(true);
    expect(onBoundaries({ start: 0.3, end: 2.0 }, t)).toBe(false); // opens on "two."
  });
});

describe("the heuristic on the labelled set's tuning half (a loose floor; the bench reads quality)", () => {
  it("finds most moments in its top 5, with few decoys, on sentence boundaries", () => {
    const avg = average(rows);
    // Tuning half (every shape: interviews, solo talks, panels, debates, stories, call-ins): 0.98,
    // 0.56, 0.08, 0.99 once the episode's framing is read (goals 0.85, 0.5, 0.1, 0.95; the first
    // issue-28 scorer measured 0.82, 0.47, 0.07, 0.98). Precision@5 is capped at 0.58 on this half:
    // 49 moments over 17 episodes of 2–4.
    expect(avg.hit).toBeGreaterThanOrEqual(0.9);
    expect(avg.precision).toBeGreaterThanOrEqual(0.5);
    // Decoys here are read loosely (half of the decoy or of the clip); the fitted ranker (issue 35),
    // chosen by leaving one writer out, measured 0.21 on this half and 0.08 by the corpus's own rule
    // (IoU 0.5) on writers it never saw; weighting decoys up in the fit lowered both but lost hits.
    expect(avg.decoys).toBeLessThanOrEqual(0.25);
    expect(avg.boundaries).toBeGreaterThanOrEqual(0.9);
  });

  it("answers briefs through the API's path (clips already found passed as existing)", () => {
    // Tuning half, measured 0.43–0.51 (goal 0.75) while briefs by meaning (brief.ts) were being reworked;
    // 0.76 on the ten interviews with the issue-16 scorer; before issue 16, 0: a search could not answer
    // with a listed clip.
    expect(average(rows).briefApi).toBeGreaterThanOrEqual(0.35);
  });
});
