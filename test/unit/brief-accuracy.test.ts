// Briefs over the labelled set: the top answer to each brief, searched fresh and searched the way
// the API does (with the episode's clips already listed), should find the brief's moment. The bar
// is loose on purpose; bench/find-clips is where the number is read. Two episodes by default (the
// scorer is not cheap); BRIEF_ALL=1 runs every episode, BRIEF_DEBUG=1 prints each answer.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { answersTo } from "../../plugins/find-clips/brief.js";
import { findClips } from "../../plugins/find-clips/heuristic.js";
import { resolveLimits } from "../../plugins/find-clips/index.js";

type Span = { start: number; end: number };
const dir = path.join(import.meta.dirname, "..", "fixtures", "labelled");
const episodes = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .map((f) => ({ name: f, ...JSON.parse(readFileSync(path.join(dir, f), "utf8")) }))
  .filter((e) => e.briefs?.length)
  .filter((e, i) => process.env.BRIEF_ALL || i < 2);
const overlap = (a: Span, b: Span) => Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
/** Covers at least half the moment and is at most twice its length. */
const finds = (c: Span | undefined, m: Span) =>
  !!c && overlap(c, m) >= 0.5 * (m.end - m.start) && c.end - c.start <= 2 * (m.end - m.start);

describe("briefs on the labelled set", () => {
  it("finds the brief's moment as the top answer, fresh and with the episode's clips listed", {
    timeout: 600_000,
  }, () => {
    let fresh = 0;
    let api = 0;
    let n = 0;
    const lengths: number[] = [];
    for (const e of episodes) {
      const limits = { ...resolveLimits({}), seed: e.name, duration: e.duration };
      const listed = findClips(e, limits);
      for (const b of e.briefs as Array<{ label: number; about: string }>) {
        const moment = e.labels[b.label] as Span;
        n++;
        const top = answersTo(findClips(e, { ...limits, about: b.about }), b.about)[0];
        if (finds(top, moment)) fresh++;
        if (process.env.BRIEF_DEBUG)
          console.log(
            e.name,
            b.about,
            JSON.stringify(moment),
            top && [top.start, top.end, top.score.reasons[0]],
            finds(top, moment),
          );
        if (top) lengths.push(top.duration);
        const viaApi = answersTo(findClips(e, { ...limits, about: b.about, existing: listed }), b.about)[0];
        if (finds(viaApi, moment)) api++;
      }
    }
    const median = [...lengths].sort((a, b) => a - b)[Math.floor(lengths.length / 2)] ?? 0;
    console.log(
      `briefs: ${n}; top answer finds its moment: fresh ${(fresh / n).toFixed(2)}, ` +
        `through the API ${(api / n).toFixed(2)}; median answer ${median.toFixed(0)} s`,
    );
    expect(n).toBeGreaterThan(0);
    expect(fresh / n).toBeGreaterThanOrEqual(0.3);
    expect(api / n).toBeGreaterThanOrEqual(0.3);
  });
});
