// The bench's port of the corpus's scoring rules agrees with score.py itself, run on the same spans:
// on a punctuated corpus episode, on one whose true sentence ends are labels, and on the project's own
// set as the fifth writer (its script sentences written out as sentence_ends).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/cli.js";
import { corpusDir, loadOwn, loadWriter, type Episode } from "../../bench/_find-clips-corpus.js";
import { judge, type Span } from "../../bench/_find-clips-judge.js";

const dir = corpusDir();
// score.py is the corpus authors' own program, not ours, so it is not copied: it is run where the
// shared corpus sits beside the checkout (as on CI), and this cross-check waits for it elsewhere.
const scorePy = [path.join(repoRoot, "..", "shared", "corpus", "find-clips", "score.py")].find((p) => existsSync(p));
const tmp = mkdtempSync(path.join(os.tmpdir(), "clipd-judge-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Spans that exercise every rule: exact, shifted, stretched, decoys, and snapped to words or not. */
function spans(e: Episode): Span[] {
  const [a, b, c] = e.highlights;
  const w = e.words;
  const out: Span[] = [{ ...a! }, { start: b!.start + 4, end: b!.end + 30 }];
  if (c) out.push({ start: c.start - 20, end: c.end + 0.1 });
  if (e.decoys[0]) out.push({ start: e.decoys[0].start, end: e.decoys[0].end - 3 });
  out.push({ start: w[40]!.start - 0.1, end: w[120]!.end + 0.2 });
  return out;
}

function viaPython(e: Episode, clips: Span[], answers: Array<Span | undefined>) {
  const ep = path.join(tmp, `${e.id}.json`);
  const out = path.join(tmp, `${e.id}-out.json`);
  writeFileSync(
    ep,
    JSON.stringify({
      id: e.id,
      words: e.words,
      highlights: e.highlights,
      decoys: e.decoys,
      about_queries: e.briefs.map((q) => ({ about: q.about, expected_highlight: q.highlight })),
      ...(e.sentenceEnds ? { sentence_ends: e.sentenceEnds } : {}),
    }),
  );
  writeFileSync(out, JSON.stringify({ clips, about: answers.map((a) => a ?? []) }));
  const r = JSON.parse(execFileSync("python3", [scorePy!, ep, out], { encoding: "utf8" }));
  return {
    hit: r.hit_rate,
    precision: r.precision_at_5,
    decoys: r.decoy_rate,
    boundaries: r.boundary_quality,
    brief: r.about_accuracy,
  };
}

const close = (a: Record<string, number | null>, b: Record<string, number | null>) => {
  for (const k of Object.keys(b)) expect(a[k], k).toBeCloseTo(b[k] as number, 3);
};

describe.skipIf(!dir || !scorePy)("the judge against score.py", () => {
  const episodes = () => [
    loadWriter("writer-a")[0]!,
    loadWriter("writer-a").find((e) => e.noise > 0)!,
    loadWriter("writer-b").find((e) => !e.punctuated && !e.noise)!,
    loadOwn().find((e) => e.id === "chess-club")!,
    loadOwn().find((e) => e.id === "beekeeping")!,
  ];
  it("gives the same five measures on every kind of episode", () => {
    for (const e of episodes()) {
      const clips = spans(e);
      // Answers: the right highlight, a wrong one, and none.
      const answers = e.briefs.map((q, i) => (i === 2 ? undefined : e.highlights[i === 0 ? q.highlight : 0]));
      const mine = judge(e, clips, answers);
      close({ ...mine }, viaPython(e, clips, answers));
      expect(mine.hit).toBeGreaterThan(0);
    }
  });
});
