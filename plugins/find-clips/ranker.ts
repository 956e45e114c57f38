/**
 * The fitted ranker: a regularised logistic model over a window's features (rank-features.ts),
 * fitted on labelled episodes by other writers (scripts/fit-find-clips.mjs) and shipped as a small
 * JSON file (words/ranker.json) that names the data it came from. A window's score is the model's
 * probability that it is a moment someone would post, with the right extent; the reasons a user
 * reads still come from the features (the sub-scores' own reasons, and the features that weighed
 * most for this window).
 *
 * The fit is Newton's method (iteratively reweighted least squares) on standardised features with
 * an L2 penalty: deterministic, a few dozen weights, exact to the last digit written.
 */
import { readFileSync } from "node:fs";
import { RANK_FEATURES } from "./rank-features.js";
import { wordsFile } from "./vectors.js";

export interface Ranker {
  model: "logistic";
  /** What it was fitted on: writers, episode ids, and a hash of their words and labels. */
  fitted_on: { writers: string[]; episodes: string[]; sha256: string; windows: number };
  settings: { l2: number; target: string };
  features: string[];
  mean: number[];
  scale: number[];
  weights: number[];
  bias: number;
}

let shipped: Ranker | null | undefined;
/** The shipped ranker (words/ranker.json), read once; undefined when the file is missing. */
export function shippedRanker(): Ranker | undefined {
  if (shipped === undefined) {
    const file = wordsFile("ranker.json");
    shipped = file ? (JSON.parse(readFileSync(file, "utf8")) as Ranker) : null;
    if (shipped && shipped.features.join("|") !== RANK_FEATURES.join("|")) shipped = null;
  }
  return shipped ?? undefined;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** The model's log-odds for a feature vector. */
export function logit(r: Ranker, x: number[]): number {
  let z = r.bias;
  for (let k = 0; k < r.weights.length; k++) z += (r.weights[k]! * (x[k]! - r.mean[k]!)) / r.scale[k]!;
  return z;
}
/** The window's score, 0..1. */
export const rankScore = (r: Ranker, x: number[]) => sigmoid(logit(r, x));

/** The features that raised (or lowered) this window's score most, for its reasons. */
export function weighed(r: Ranker, x: number[], n = 3): { up: string[]; down: string[] } {
  const parts = r.weights.map((w, k) => [r.features[k]!, (w * (x[k]! - r.mean[k]!)) / r.scale[k]!] as const);
  const by = [...parts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return {
    up: by
      .filter(([, v]) => v > 0.25)
      .slice(0, n)
      .map(([k]) => k),
    down: by
      .filter(([, v]) => v < -0.25)
      .slice(-n)
      .reverse()
      .map(([k]) => k),
  };
}

export interface Sample {
  x: number[];
  /** 0..1: how well the window matches a labelled moment (soft targets allowed). */
  y: number;
  /** The sample's weight (an episode's windows share one unit). */
  w: number;
}

/** Solves A v = g for a symmetric positive-definite A (Cholesky). */
export function solve(A: number[][], g: number[]): number[] {
  const n = g.length;
  const L = A.map(() => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++)
    for (let j = 0; j <= i; j++) {
      let s = A[i]![j]!;
      for (let k = 0; k < j; k++) s -= L[i]![k]! * L[j]![k]!;
      L[i]![j] = i === j ? Math.sqrt(Math.max(s, 1e-12)) : s / L[j]![j]!;
    }
  const y = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    let s = g[i]!;
    for (let k = 0; k < i; k++) s -= L[i]![k]! * y[k]!;
    y[i] = s / L[i]![i]!;
  }
  const v = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < n; k++) s -= L[k]![i]! * v[k]!;
    v[i] = s / L[i]![i]!;
  }
  return v;
}

const round = (v: number) => Number(v.toPrecision(7));

/**
 * Fits the logistic ranker: standardises the features, balances the positive and negative mass
 * (moments are a few windows among thousands), and runs Newton steps on the L2-penalised
 * log-likelihood until the step is negligible. The bias is not penalised.
 */
export function fitRanker(
  samples: Sample[],
  settings: { l2: number; target: string },
  fittedOn: Ranker["fitted_on"],
  names: readonly string[] = RANK_FEATURES,
): Ranker {
  const d = names.length;
  const total = samples.reduce((a, s) => a + s.w, 0) || 1;
  const mean = names.map((_, k) => samples.reduce((a, s) => a + s.w * s.x[k]!, 0) / total);
  const scale = names.map((_, k) => {
    const v = samples.reduce((a, s) => a + s.w * (s.x[k]! - mean[k]!) ** 2, 0) / total;
    return Math.sqrt(v) > 1e-6 ? Math.sqrt(v) : 1;
  });
  const pos = samples.reduce((a, s) => a + s.w * s.y, 0);
  const neg = samples.reduce((a, s) => a + s.w * (1 - s.y), 0);
  const lift = pos > 0 ? neg / pos : 1;
  const z = samples.map((s) => [...s.x.map((v, k) => (v - mean[k]!) / scale[k]!), 1]);
  const beta = new Array<number>(d + 1).fill(0);
  const l2 = settings.l2 * total;
  for (let iter = 0; iter < 50; iter++) {
    const H = Array.from({ length: d + 1 }, (_, i) =>
      Array.from({ length: d + 1 }, (_, j) => (i === j && i < d ? l2 : 0)),
    );
    const g = beta.map((b, i) => (i < d ? l2 * b : 0));
    samples.forEach((s, n) => {
      const zi = z[n]!;
      let t = 0;
      for (let k = 0; k <= d; k++) t += beta[k]! * zi[k]!;
      const p = 1 / (1 + Math.exp(-t));
      const a = lift * s.y + (1 - s.y);
      const gi = s.w * (a * p - lift * s.y);
      const hi = s.w * a * p * (1 - p);
      for (let i = 0; i <= d; i++) {
        g[i]! += gi * zi[i]!;
        const hz = hi * zi[i]!;
        for (let j = 0; j <= i; j++) H[i]![j]! += hz * zi[j]!;
      }
    });
    for (let i = 0; i <= d; i++) for (let j = 0; j < i; j++) H[j]![i] = H[i]![j]!;
    const step = solve(H, g);
    let big = 0;
    for (let k = 0; k <= d; k++) (beta[k]! -= step[k]!), (big = Math.max(big, Math.abs(step[k]!)));
    if (big < 1e-8) break;
  }
  return {
    model: "logistic",
    fitted_on: fittedOn,
    settings,
    features: [...names],
    mean: mean.map(round),
    scale: scale.map(round),
    weights: beta.slice(0, d).map(round),
    bias: round(beta[d]!),
  };
}
