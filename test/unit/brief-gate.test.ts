// A brief is matched by a sentence model as well as by words: a brief that says the same thing in
// other words finds its moment, and a brief about something the episode never touches gets no answer.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { corpusDir, loadWriters } from "../../bench/_find-clips-corpus.js";
import { fittedOn } from "../../bench/_find-clips-brief.js";
import { isShow, textOf } from "../../plugins/find-clips/brief-features.js";
import { shippedBriefWeights } from "../../plugins/find-clips/brief-weights.js";
import { findClips, prepare } from "../../plugins/find-clips/heuristic.js";
import { resolveLimits } from "../../plugins/find-clips/index.js";
import { embedAhead } from "../../plugins/find-clips/sentence-model.js";
import { wordsFile } from "../../plugins/find-clips/vectors.js";

/** A short gardening talk: three passages of about forty seconds, one word every 0.35 s. */
const PASSAGES = [
  "After a week of dry heat my tomatoes got a sudden downpour. The plants drank so fast that the " +
    "fruit swelled quicker than the skin could stretch. By morning half of them had split open down " +
    "the side. The trick is to water deeply and evenly, so a storm is never a shock. Mulch helps too, " +
    "because it keeps the soil from drying out between waterings.",
  "Slugs love young lettuce more than anything else in the bed. I go out after dark with a torch and " +
    "pick them off by hand. Copper tape around the pots keeps most of them out. A saucer of beer sunk " +
    "into the soil catches the rest by morning. Frogs and beetles eat them as well, so a pond nearby " +
    "is the best defence of all.",
  "Compost is just patience. Green cuttings and brown leaves go in layers, and you turn the heap " +
    "every few weeks to let the air in. After a year it smells of a forest floor. Spread it thin on " +
    "the beds in autumn and the worms pull it down for you over the winter. Nothing else you can " +
    "buy feeds the soil as well.",
];
const transcript = () => {
  let t = 0;
  const words = PASSAGES.flatMap((p) =>
    p.split(" ").map((text) => {
      const w = { text, start: t, end: t + 0.3 };
      t += text.endsWith(".") ? 0.9 : 0.35;
      return w;
    }),
  );
  return { words, duration: t };
};

async function ask(about: string) {
  const tr = transcript();
  const opts = { ...resolveLimits({ min_seconds: 20, max_seconds: 60 }), seed: "garden", duration: tr.duration };
  const p = prepare(tr, opts);
  expect(await embedAhead([about, ...p.sentences.filter((s) => !isShow(s)).map(textOf)])).toBe(true);
  const existing = findClips(tr, opts, p);
  const after = findClips(tr, { ...opts, about, existing }, p);
  return after.filter((c) => c.answers?.some((a) => a.about === about) || c.about === about);
}

describe("a brief matched by meaning, and one the episode has nothing for", () => {
  it("answers a paraphrased brief with its passage", async () => {
    const answers = await ask("why heavy rain makes ripe fruit burst");
    expect(answers.length).toBeGreaterThan(0);
    expect(answers[0]!.start).toBeLessThan(20);
  }, 60_000);

  it("gives an unrelated brief no answer at all", async () => {
    expect(await ask("quantum physics and the strange behaviour of subatomic particles")).toEqual([]);
  }, 60_000);

  // The byte-for-byte refit embeds every sentence of 57 episodes (about five minutes on 2 shared
  // cores), too long for every run: `node scripts/fit-find-clips.mjs --check` does it and fails on
  // any difference. Here: the shipped file names exactly the data the repository holds now.
  it.skipIf(!corpusDir())("names the episodes and the hash of the data it was fitted on", () => {
    const eps = loadWriters();
    const w = JSON.parse(readFileSync(wordsFile("brief.json")!, "utf8")) as { fitted_on: ReturnType<typeof fittedOn> };
    expect(w.fitted_on).toEqual(fittedOn(eps, w.fitted_on.briefs));
    expect(w.fitted_on.briefs).toBe(eps.reduce((a, e) => a + e.briefs.length, 0));
    expect(shippedBriefWeights()!.gate.threshold).toBeGreaterThan(0);
  });
});
