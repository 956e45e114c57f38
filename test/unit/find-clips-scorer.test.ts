// The scorer's parts (issue 16): questions told by syntax, sentence features, topic boundaries, and
// titles over the labelled set (never one word, never a URL-like or sponsor token).
import { describe, expect, it } from "vitest";
import { loadLabelled, splitSet } from "../../bench/find-clips.js";
import { readFacts } from "../../plugins/find-clips/features.js";
import { findClips } from "../../plugins/find-clips/heuristic.js";
import { analyse } from "../../plugins/find-clips/nlp.js";
import { segmentTopics } from "../../plugins/find-clips/segment.js";
import { toSentences } from "../../plugins/find-clips/text.js";

describe("find-clips scorer", () => {
  it("tells questions by syntax, not by their first word", () => {
    for (const q of [
      "Is it true that you run twice a week",
      "So, how did you start baking.",
      "Okay Hanna, where can people find your bakery",
      "Do you knead it",
    ])
      expect(analyse(q).question, q).toBe(true);
    for (const s of ["When the numbers are bad, we cut the price.", "Don't forget the salt.", "Is."])
      expect(analyse(s).question, s).toBe(false);
  });

  it("reads named features from a sentence", () => {
    expect(readFacts("Our show is brought to you by Brightmug, go to brightmug dot com.").show).toBe("sponsor read");
    expect(readFacts("Thanks for listening, see you next week.").show).toBe("sign-off");
    expect(readFacts("Stop watching the clock and watch the dough.").advice).toBe(true);
    const claim = readFacts("Most bad sourdough isn't about the recipe at all.");
    expect(claim.claim && claim.sweeping).toBe(true);
    expect(readFacts("And then it was fine.").dangling).toBe("and");
    expect(readFacts("They were fine after that.").dangling).toBe("they");
    // Existential "there" points back at nothing; "no" as a determiner is a universal claim; a comparison is a tension.
    const existential = readFacts(
      "There's no such thing as a maths person, and the belief does more damage than any bad teacher.",
    );
    expect(existential.dangling).toBeUndefined();
    expect(existential.sweeping && existential.comparison && existential.claim).toBe(true);
    expect(readFacts("We went to the shop on Tuesday.").comparison).toBe(false);
  });

  it("ends a sentence where the speaker changes, punctuated or not", () => {
    const words = ["so", "what", "now", "we", "wait"].map((text, i) => ({
      text,
      start: i,
      end: i + 0.5,
      speaker: i < 3 ? "S1" : "S2",
    }));
    expect(toSentences(words).map((s) => s.text)).toEqual(["so what now", "we wait"]);
  });

  it("finds a topic boundary where the words change", () => {
    const a = [
      "Bread needs flour and water.",
      "Flour gives bread its crumb.",
      "Water makes the bread dough soft.",
      "Bread flour is strong.",
    ];
    const b = [
      "Rockets burn fuel in space.",
      "Space rockets need oxygen.",
      "Fuel and oxygen make rocket thrust.",
      "Rockets reach orbit fast.",
    ];
    const t = segmentTopics([...a, ...b]);
    expect(t.boundary[4]).toBe(true);
    expect(t.boundary.filter(Boolean).length).toBeLessThanOrEqual(3);
  });

  it("gives every labelled clip four sub-scores and a title of several words, never a URL or sponsor token", () => {
    for (const t of splitSet(loadLabelled()).tune) {
      const sponsor = new Set(((t as { sponsor_words?: string[] }).sponsor_words ?? []).map((w) => w.toLowerCase()));
      for (const c of findClips(t, { target: 60, min: 30, max: 150, count: 10, seed: t.name, duration: t.duration })) {
        const words = c.title.split(/\s+/).filter(Boolean);
        expect(words.length, `${t.name}: ${c.title}`).toBeGreaterThanOrEqual(2);
        expect(words.length, `${t.name}: ${c.title}`).toBeLessThanOrEqual(9);
        expect(c.title).not.toMatch(/\.(com|io|org|net)\b|www|https?:|\bdot com\b/i);
        for (const w of words)
          expect(sponsor.has(w.toLowerCase().replace(/[^\p{L}\p{N}.]/gu, "")), `${t.name}: ${c.title}`).toBe(false);
        for (const k of ["hook", "coherence", "payoff", "delivery"] as const)
          expect(c.scores?.[k].reason.length).toBeGreaterThan(0);
      }
    }
  });
});
