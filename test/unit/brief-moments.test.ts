// Briefs matched against the episode's moments (issue 28): the moments are the scorer's own
// non-overlapping picks; word match and meaning are blended as ranks; a brief word's near words are
// its nearest among the episode's own; sentence vectors weigh words by SIF; the shipped vectors have
// their common directions taken out, so unrelated words are far apart.
import { describe, expect, it } from "vitest";
import { momentsOf } from "../../plugins/find-clips/moments.js";
import { NEAR, NEIGHBOURS, nearestInEpisode, rarity, vectorOf } from "../../plugins/find-clips/meaning.js";
import { rankNormal } from "../../plugins/find-clips/normal.js";
import { sifWeight } from "../../plugins/find-clips/sif.js";
import { dot, wordVectors } from "../../plugins/find-clips/vectors.js";

const cand = (start: number, end: number, quality: number) => ({ w: { start, end }, s: { quality } });

describe("moments", () => {
  it("picks the best window by quality, then the best that overlaps none picked, until none fits", () => {
    const picked = momentsOf([cand(0, 40, 0.5), cand(30, 90, 0.9), cand(85, 120, 0.6), cand(90, 130, 0.4)]);
    expect(picked.map((x) => [x.w.start, x.w.end])).toEqual([
      [30, 90],
      [90, 130],
    ]);
  });
});

describe("rank fusion", () => {
  it("turns scores into ranks from 0 to 1, ties sharing their mean rank", () => {
    expect(rankNormal([5, 1, 3])).toEqual([1, 0, 0.5]);
    expect(rankNormal([0, 0, 2])).toEqual([0.25, 0.25, 1]);
    expect(rankNormal([7])).toEqual([1]);
  });
});

describe("meaning", () => {
  it("keeps unrelated words apart and near words near in the shipped vectors", () => {
    const v = wordVectors()!;
    const cos = (a: string, b: string) => dot(v.get(a)!, v.get(b)!);
    expect(cos("show", "sleep")).toBeLessThan(0.25);
    expect(cos("eatery", "restaurant")).toBeGreaterThan(0.75);
    expect(cos("bread", "sourdough")).toBeGreaterThan(NEAR);
  });

  it("counts for a brief word only its few nearest words among the episode's own", () => {
    const q = { word: "eatery", stem: "eateri", vec: vectorOf("eatery"), rarity: rarity("eatery") };
    const episode = ["restaurant", "cafe", "diner", "bistro", "pub", "canteen", "kitchen", "wolves", "tide"];
    const near = nearestInEpisode(q, new Map(episode.map((w) => [w, vectorOf(w)])));
    expect(near.size).toBeLessThanOrEqual(NEIGHBOURS);
    expect(near.get("restaurant")).toBeGreaterThan(0.3);
    expect(near.has("wolves")).toBe(false);
    expect(near.has("tide")).toBe(false);
    expect(nearestInEpisode({ ...q, vec: undefined }, new Map()).size).toBe(0);
  });

  it("weighs a word by how rare it is in English (SIF)", () => {
    expect(sifWeight("people")).toBeLessThan(sifWeight("sourdough"));
    expect(sifWeight("sourdough")).toBeGreaterThan(0.9);
  });
});
