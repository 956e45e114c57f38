/**
 * Fitting the ranker (plugins/find-clips/ranker.ts) on labelled episodes: each episode's candidate
 * windows, exactly as the engine forms them (candidatesOf), become samples whose target says how
 * well the window matches a labelled moment by the corpus's rule (score.py: a hit, graded by its
 * IoU so the fit learns the extent as well as the place). Each episode weighs the same, however
 * many windows it has. Used by scripts/fit-find-clips.mjs (the shipped weights) and by the bench,
 * which fits once per held-out writer.
 */
import { createHash } from "node:crypto";
import { candidatesOf, findClips, prepare } from "../plugins/find-clips/heuristic.js";
import { resolveLimits } from "../plugins/find-clips/index.js";
import { againstEpisode } from "../plugins/find-clips/rank-features.js";
import { fitRanker, type Ranker, type Sample } from "../plugins/find-clips/ranker.js";
import type { BriefWeights } from "../plugins/find-clips/brief-weights.js";
import type { Episode } from "./_find-clips-corpus.js";
import { hits, iou } from "./_find-clips-judge.js";
import type { Finder } from "./_find-clips-lowo.js";

/** The settings chosen by the leave-one-writer-out mean (docs/decisions.md, "A fitted ranker"). */
export const SETTINGS = { l2: 0.003, target: "iou" };

interface Extracted {
  x: number[][];
  spans: Array<{ start: number; end: number }>;
}
const cache = new Map<string, Extracted>();

/** An episode's candidate windows: their features and spans (kept per episode for the folds). */
export function extract(e: Episode): Extracted {
  const key = `${e.writer}/${e.id}`;
  let v = cache.get(key);
  if (!v) {
    const limits = resolveLimits({});
    const p = prepare({ words: e.words }, { duration: e.duration, max: limits.max });
    const scored = candidatesOf(p, { ...limits, ranker: null });
    v = {
      x: againstEpisode(scored.map(({ s }) => s.features!)),
      spans: scored.map(({ w }) => ({ start: w.start, end: w.end })),
    };
    cache.set(key, v);
  }
  return v;
}

/** How well a span matches the episode's moments: its best IoU with a highlight it hits, else 0. */
export function target(e: Episode, span: { start: number; end: number }, kind = SETTINGS.target): number {
  const hit = e.highlights.filter((h) => hits(span, h));
  if (!hit.length) return 0;
  return kind === "hit" ? 1 : Math.max(...hit.map((h) => iou(span, h)));
}

export function samplesOf(eps: Episode[], kind = SETTINGS.target): Sample[] {
  return eps.flatMap((e) => {
    const { x, spans } = extract(e);
    return x.map((xi, i) => ({ x: xi, y: target(e, spans[i]!, kind), w: 1 / Math.max(1, x.length) }));
  });
}

/** What the weights were fitted on: writers, episodes, and a hash of their words and labels. */
export function fittedOn(eps: Episode[], windows: number): Ranker["fitted_on"] {
  const h = createHash("sha256");
  for (const e of eps)
    h.update(
      JSON.stringify([e.writer, e.id, e.words.map((w) => [w.text, w.start, w.end, w.speaker]), e.highlights, e.decoys]),
    );
  return {
    writers: [...new Set(eps.map((e) => e.writer))],
    episodes: eps.map((e) => `${e.writer}/${e.id}`),
    sha256: h.digest("hex"),
    windows,
  };
}

/** The ranker fitted on these episodes with these settings. */
export function fit(eps: Episode[], settings = SETTINGS): Ranker {
  const samples = samplesOf(eps, settings.target);
  return fitRanker(samples, settings, fittedOn(eps, samples.length));
}

/** The engine with a given ranker (null: the hand-set weights) and brief weights, at the default limits. */
export function finderWith(ranker: Ranker | null, briefWeights?: BriefWeights): Finder {
  const limits = resolveLimits({});
  return (e, about, existing) =>
    findClips(
      { words: e.words },
      { ...limits, seed: e.id, duration: e.duration, about, existing, ranker, briefWeights },
    );
}

/** The ranker as the shipped file holds it (one stable layout, so a refit compares byte for byte). */
export const rankerJson = (r: Ranker) => `${JSON.stringify(r, null, 1)}\n`;
