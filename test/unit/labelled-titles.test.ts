// Titles a person would post, over the whole labelled set (test/fixtures/labelled): no clip the
// heuristic returns (up to ten per episode, so most of each one is titled) is a single word, holds a
// piece of a web address, or a word from the episode's sponsor read (its brand, address and promo
// code, listed per script in "# sponsor_words").
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadLabelled, splitSet, stageRunner } from "../../bench/find-clips.js";

// The tuning half only: nothing is read from a held-out episode's own clips.
const set = splitSet(loadLabelled()).tune;
const titles: Array<{ episode: string; title: string; sponsor: string[] }> = [];
let runner: Awaited<ReturnType<typeof stageRunner>>;

beforeAll(async () => {
  runner = await stageRunner();
  for (const t of set) {
    const sponsor = (t.sponsor_words ?? []).map((w) => w.toLowerCase());
    for (const c of await runner.run(t, {})) titles.push({ episode: t.name, title: c.title, sponsor });
  }
}, 600_000);
afterAll(() => runner?.close());

/** Spoken or written pieces of a web address: "example dot com slash pod", "www", ".io", "https". */
const TLD = "(com|net|org|io|co|app|ai|dev|tv|fm|uk)";
const URL_LIKE = new RegExp(`\\b(dot ${TLD}|slash|www|https?)\\b|\\w\\.${TLD}\\b|://`, "i");

const words = (title: string) =>
  title
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ""))
    .filter(Boolean);

describe("clip titles over the labelled set", () => {
  it("were made for every clip", () => {
    expect(titles.length).toBeGreaterThan(set.length * 5);
    expect(set.filter((t) => t.sponsor_words?.length).length).toBeGreaterThanOrEqual(10);
  });

  it("are never a single word", () => {
    expect(titles.filter((t) => words(t.title).length < 2)).toEqual([]);
  });

  it("hold no URL-like token", () => {
    expect(URL_LIKE.test("Go to hearthwool dot com slash pod")).toBe(true);
    expect(URL_LIKE.test("Why sourdough needs less kneading")).toBe(false);
    expect(titles.filter((t) => URL_LIKE.test(t.title))).toEqual([]);
  });

  it("hold no token from the episode's sponsor read", () => {
    const bad = titles.filter((t) =>
      words(t.title).some((w) => t.sponsor.some((s) => s === w || s.split(".")[0] === w)),
    );
    expect(bad).toEqual([]);
  });
});
