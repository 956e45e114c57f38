/**
 * The brief scorer's fitted weights (words/brief.json): a conditional logit over each brief's
 * candidate moments (the chance that a moment is the brief's answer is softmax of a linear score),
 * fitted on labelled briefs by scripts/fit-find-clips.mjs, and the gate that refuses a brief the
 * episode holds nothing for: below `gate.threshold`, the best moment's closeness by the sentence
 * model, a brief gets no answer. Two weight sets: with the sentence model, and without it (its
 * three features left out) for when the model cannot load.
 */
import { readFileSync } from "node:fs";
import { BRIEF_FEATURES, WORDS_ONLY } from "./brief-features.js";
import { solve } from "./ranker.js";
import { wordsFile } from "./vectors.js";

export interface LinearWeights {
  mean: number[];
  scale: number[];
  weights: number[];
}
export interface BriefWeights {
  model: "conditional-logit";
  fitted_on: { writers: string[]; episodes: string[]; sha256: string; briefs: number };
  settings: { l2: number; lose: number };
  features: string[];
  with_model: LinearWeights;
  words_only: LinearWeights;
  /** Briefs whose best moment is closer than this by the sentence model are answered; the others not. */
  gate: { feature: "sentence"; threshold: number };
}

/** One labelled brief: its candidates' features and which of them would answer it right. */
export interface BriefGroup {
  x: number[][];
  y: number[];
}

let shipped: BriefWeights | null | undefined;
/** The shipped weights, read once; undefined when the file is missing or names other features. */
export function shippedBriefWeights(): BriefWeights | undefined {
  if (shipped === undefined) {
    const file = wordsFile("brief.json");
    shipped = file ? (JSON.parse(readFileSync(file, "utf8")) as BriefWeights) : null;
    if (shipped && shipped.features.join("|") !== BRIEF_FEATURES.join("|")) shipped = null;
  }
  return shipped ?? undefined;
}

/** A candidate's linear score (its log-odds against the brief's other candidates, up to a constant). */
export function briefLogit(w: LinearWeights, x: number[]): number {
  let z = 0;
  for (let k = 0; k < w.weights.length; k++) z += (w.weights[k]! * (x[k]! - w.mean[k]!)) / w.scale[k]!;
  return z;
}

const round = (v: number) => Number(v.toPrecision(7));

/**
 * Fits the conditional logit by Newton's method on standardised features with an L2 penalty: the
 * log-likelihood of the right answers (a brief with several right candidates shares its unit
 * among them). Deterministic: the same groups give the same weights, to the digits written.
 */
export function fitLinear(groups: BriefGroup[], d: number, l2: number): LinearWeights {
  const used = groups.filter((g) => g.y.some((v) => v > 0) && g.x.length > 1);
  const rows = used.flatMap((g) => g.x);
  const n = Math.max(1, rows.length);
  const mean = Array.from({ length: d }, (_, k) => rows.reduce((a, x) => a + x[k]!, 0) / n);
  const scale = mean.map((m, k) => {
    const v = Math.sqrt(rows.reduce((a, x) => a + (x[k]! - m) ** 2, 0) / n);
    return v > 1e-6 ? v : 1;
  });
  const zs = used.map((g) => g.x.map((x) => x.slice(0, d).map((v, k) => (v - mean[k]!) / scale[k]!)));
  const beta = new Array<number>(d).fill(0);
  const lam = l2 * used.length;
  for (let iter = 0; iter < 50; iter++) {
    const H = Array.from({ length: d }, (_, i) => Array.from({ length: d }, (_, j) => (i === j ? lam : 0)));
    const g = beta.map((b) => lam * b);
    used.forEach((grp, gi) => {
      const z = zs[gi]!;
      const s = z.map((x) => x.reduce((a, v, k) => a + v * beta[k]!, 0));
      const top = Math.max(...s);
      const e = s.map((v) => Math.exp(v - top));
      const sum = e.reduce((a, c) => a + c, 0);
      const p = e.map((v) => v / sum);
      const ysum = grp.y.reduce((a, c) => a + c, 0);
      const xbar = beta.map((_, k) => z.reduce((a, x, i) => a + p[i]! * x[k]!, 0));
      z.forEach((x, i) => {
        const t = grp.y[i]! / ysum;
        for (let k = 0; k < d; k++) g[k]! += (p[i]! - t) * x[k]!;
        for (let a = 0; a < d; a++)
          for (let b = 0; b <= a; b++) H[a]![b]! += p[i]! * (x[a]! - xbar[a]!) * (x[b]! - xbar[b]!);
      });
    });
    for (let a = 0; a < d; a++) for (let b = 0; b < a; b++) H[b]![a] = H[a]![b]!;
    const step = solve(H, g);
    let big = 0;
    for (let k = 0; k < d; k++) (beta[k]! -= step[k]!), (big = Math.max(big, Math.abs(step[k]!)));
    if (big < 1e-9) break;
  }
  return { mean: mean.map(round), scale: scale.map(round), weights: beta.map(round) };
}

/**
 * The weights and the gate fitted on labelled briefs. The gate's threshold loses at most `lose` of
 * these briefs: the closeness of the best moment of the brief ranked `lose` from the bottom.
 */
export function fitBriefWeights(
  groups: BriefGroup[],
  best: number[],
  settings: BriefWeights["settings"],
  fittedOn: BriefWeights["fitted_on"],
): BriefWeights {
  const sorted = [...best].filter((v) => v > -1).sort((a, b) => a - b);
  const threshold = sorted.length ? sorted[Math.floor(settings.lose * sorted.length)]! : -1;
  return {
    model: "conditional-logit",
    fitted_on: fittedOn,
    settings,
    features: [...BRIEF_FEATURES],
    with_model: fitLinear(groups, BRIEF_FEATURES.length, settings.l2),
    words_only: fitLinear(groups, WORDS_ONLY, settings.l2),
    gate: { feature: "sentence", threshold: round(threshold) },
  };
}
