// The fitted ranker: the shipped weights are what the fit gives on the named data, byte for byte;
// the engine ranks by them (turning them round turns the ranking round), and the reasons a user
// reads name the features that weighed.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { corpusDir, loadOwn, loadWriters } from "../../bench/_find-clips-corpus.js";
import { fit, rankerJson } from "../../bench/_find-clips-fit.js";
import { findClips } from "../../plugins/find-clips/heuristic.js";
import { resolveLimits } from "../../plugins/find-clips/index.js";
import { RANK_FEATURES } from "../../plugins/find-clips/rank-features.js";
import { fitRanker, shippedRanker, type Ranker } from "../../plugins/find-clips/ranker.js";
import { wordsFile } from "../../plugins/find-clips/vectors.js";

const file = wordsFile("ranker.json")!;

describe("the fitted ranker", () => {
  it("ships with the features the engine reads and names the data it came from", () => {
    const r = shippedRanker()!;
    expect(r.features).toEqual(RANK_FEATURES);
    expect(r.weights).toHaveLength(RANK_FEATURES.length);
    expect(r.fitted_on.writers).toEqual(["writer-a", "writer-b", "writer-c", "writer-d", "clipd"]);
    expect(r.fitted_on.episodes.length).toBeGreaterThanOrEqual(57);
    expect(r.fitted_on.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it.skipIf(!corpusDir())(
    "is refitted from the corpus and our set to the same file, byte for byte",
    () => {
      expect(rankerJson(fit(loadWriters()))).toBe(readFileSync(file, "utf8"));
    },
    600_000,
  );

  it("is what the engine ranks by, and its reasons name the features that weighed", () => {
    const e = loadOwn().find((t) => t.id === "beekeeping")!;
    const opts = { ...resolveLimits({}), seed: "r", duration: e.duration };
    const shipped = findClips({ words: e.words }, opts);
    expect(shipped[0]!.score.reasons.join("; ")).toMatch(/weighs most for it: /);
    const r = shippedRanker()!;
    const reversed: Ranker = { ...r, weights: r.weights.map((w) => -w) };
    const turned = findClips({ words: e.words }, { ...opts, ranker: reversed });
    expect(turned[0]!.start).not.toBe(shipped[0]!.start);
  });

  it("fits the same weights from the same samples, and learns which feature tells", () => {
    let seed = 7;
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const samples = Array.from({ length: 400 }, () => {
      const x = RANK_FEATURES.map(() => rand());
      return { x, y: x[5]! > 0.6 ? 1 : 0, w: 1 };
    });
    const on = { writers: ["t"], episodes: ["t/1"], sha256: "0".repeat(64), windows: 400 };
    const a = fitRanker(samples, { l2: 0.01, target: "hit" }, on);
    expect(rankerJson(a)).toBe(rankerJson(fitRanker(samples, { l2: 0.01, target: "hit" }, on)));
    const top = a.weights.map((w, k) => [Math.abs(w), k] as const).sort((p, q) => q[0] - p[0])[0]![1];
    expect(RANK_FEATURES[top]).toBe(RANK_FEATURES[5]);
  });
});
