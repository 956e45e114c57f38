/**
 * What the brief scorer (brief.ts) reads of each candidate moment: how well its words match the
 * brief (soft BM25, meaning.ts), how close its words are by meaning (SIF, sif.ts), how close its
 * sentences are by meaning (a sentence model, sentence-model.ts, when loaded), its quality, how well
 * its place fits a brief that names one, and its length. The weights that blend them are fitted on
 * labelled briefs (scripts/fit-find-clips.mjs), so the features are kept as plain numbers here.
 */
import { facts } from "./features.js";
import { cosine, softCounts, type SoftCounts } from "./meaning.js";
import { rankNormal } from "./normal.js";
import { placeFit, placeIn } from "./position.js";
import { sifVectors } from "./sif.js";
import type { Sentence } from "./text.js";

export interface BriefSentence {
  words: Array<{ text: string }>;
  start: number;
  end: number;
}
export interface BriefWindow {
  words: Array<{ text: string }>;
  sentences: BriefSentence[];
  start: number;
  end: number;
}

/** The features, in the order the fitted weights (words/brief.json) hold them. */
export const BRIEF_FEATURES = [
  "words",
  "meaning",
  "quality",
  "place",
  "cover",
  "length",
  "sentence",
  "sentence_rank",
  "sentence_best",
] as const;
/** Without the sentence model the last three are unknown: the weights fitted without them are used. */
export const WORDS_ONLY = BRIEF_FEATURES.length - 3;

/** Kinds of passage that never answer a topical brief, whatever words they share with it. */
const NEVER_ANSWERS = /intro|greeting|thanks|biograph|housekeeping|logistics|sponsor|sign-off|outro|advert/;

/** Show business, by the sentence's own kind when one is set, else by its show-business cues. */
export function isShow(s: BriefSentence): boolean {
  const kind = (s as { kind?: unknown }).kind;
  if (typeof kind === "string") return NEVER_ANSWERS.test(kind);
  const sentence = s as Partial<Sentence>;
  return typeof sentence.text === "string" && typeof sentence.index === "number" && !!facts(sentence as Sentence).show;
}

export const textOf = (s: { words: Array<{ text: string }> }) => s.words.map((w) => w.text).join(" ");

/** The sentences of the windows a sentence model should embed for a brief (show business left out). */
export const sentencesToEmbed = (windows: BriefWindow[]) =>
  [...new Set(windows.flatMap((w) => w.sentences))].filter((s) => !isShow(s)).map(textOf);

export interface BriefRows {
  soft: SoftCounts;
  /** Per brief word: its weight (IDF over sentences × rarity in English). */
  weights: number[];
  perWindow: Array<{ tf: number[]; len: number }>;
  /** Soft BM25 of each window. */
  rel: number[];
  /** The share of the brief's weight each window covers (each word up to once). */
  cover: number[];
  /** Each window's place fit (1 when the brief names no place). */
  fit: number[];
  /** Each window's features without quality (filled in by the scorer): BRIEF_FEATURES order. */
  x: number[][];
  /** Whether the sentence model's features are known. */
  model: boolean;
  /** The best window's sentence-model closeness, by its mean vector and by its best sentence (−1 without). */
  best: { mean: number; sentence: number };
}

const K1 = 1.2;
const B = 0.75;
export const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
export const saturate = (tf: number, len: number, avg: number) =>
  (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / Math.max(1, avg)));

/** The sentence model's closeness of each window to the brief: its sentences' mean vector, and its best one. */
function byModel(windows: BriefWindow[], about: string, vector?: (text: string) => Float32Array | undefined) {
  const brief = vector?.(about);
  if (!brief) return undefined;
  const mean: number[] = [];
  const best: number[] = [];
  for (const w of windows) {
    const v = new Float32Array(brief.length);
    let top = -1;
    for (const s of w.sentences) {
      const sv = isShow(s) ? undefined : vector!(textOf(s));
      if (!sv) continue;
      // Weighed by length: a long sentence says more of the moment than an "exactly".
      const k = Math.sqrt(s.words.length);
      for (let d = 0; d < v.length; d++) v[d]! += k * sv[d]!;
      top = Math.max(top, cosine(brief, sv));
    }
    mean.push(cosine(brief, v));
    best.push(top);
  }
  return { mean, best };
}

/** Each candidate's features against the brief (quality left at 0 for the scorer to fill). */
export function briefRows(
  windows: BriefWindow[],
  about: string,
  duration: number,
  vector?: (text: string) => Float32Array | undefined,
): BriefRows {
  const sentences = [...new Set(windows.flatMap((w) => w.sentences))];
  const at = new Map(sentences.map((s, i) => [s, i]));
  const texts = sentences.map(textOf);
  const skip = (i: number) => isShow(sentences[i]!);
  const soft = softCounts(about, texts, skip);
  // A brief word said (or meant) in most sentences tells passages apart no better than "the".
  const n = sentences.length;
  const weights = soft.brief.map(
    (q, k) =>
      idf(
        n,
        soft.counts.reduce((a, row) => a + Math.min(1, row[k]!), 0),
      ) * q.rarity,
  );
  const perWindow = windows.map((w) => {
    const tf = soft.brief.map(() => 0);
    let len = 0;
    for (const s of w.sentences) {
      const i = at.get(s)!;
      len += soft.lengths[i]!;
      soft.counts[i]!.forEach((c, k) => (tf[k]! += c));
    }
    return { tf, len };
  });
  const meaning = sifVectors(about, texts, skip);
  const closeness = windows.map((w) => {
    if (!meaning.brief) return 0;
    const v = new Float32Array(meaning.brief.length);
    for (const s of w.sentences) {
      const sv = meaning.sentences[at.get(s)!]!;
      for (let d = 0; d < v.length; d++) v[d]! += sv[d]!;
    }
    return cosine(meaning.brief, v);
  });
  const total = weights.reduce((a, c) => a + c, 0);
  const avg = perWindow.reduce((a, w) => a + w.len, 0) / Math.max(1, perWindow.length);
  const rel = perWindow.map(({ tf, len }) =>
    tf.reduce((s, c, k) => s + (c ? weights[k]! * saturate(c, len, avg) : 0), 0),
  );
  const cover = perWindow.map(({ tf }) =>
    total ? tf.reduce((s, c, k) => s + weights[k]! * Math.min(1, c), 0) / total : 0,
  );
  const place = placeIn(about);
  const fit = windows.map((w) => (place && duration > 0 ? placeFit(place, (w.start + w.end) / 2 / duration) : 1));
  const byWords = rankNormal(rel);
  const byMeaning = rankNormal(closeness);
  const model = byModel(windows, about, vector);
  const modelRank = model ? rankNormal(model.mean) : undefined;
  const x = windows.map((w, i) => [
    byWords[i]!,
    byMeaning[i]!,
    0,
    fit[i]!,
    cover[i]!,
    Math.log(Math.max(1, w.end - w.start) / 60),
    model?.mean[i] ?? 0,
    modelRank?.[i] ?? 0,
    model?.best[i] ?? 0,
  ]);
  return {
    soft,
    weights,
    perWindow,
    rel,
    cover,
    fit,
    x,
    model: !!model,
    best: { mean: model ? Math.max(-1, ...model.mean) : -1, sentence: model ? Math.max(-1, ...model.best) : -1 },
  };
}
