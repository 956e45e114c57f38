/**
 * Search mode: how well each of the episode's moments (moments.ts) answers a brief (`about`),
 * blended with the moment's quality so that a relevant but weak passage does not beat a relevant
 * strong one.
 *
 * Relevance blends, by weights fitted on labelled briefs (brief-weights.ts, words/brief.json), the
 * moment's rank by soft BM25 (meaning.ts: a brief word counts where it is said and, partly, where
 * one of its nearest words in the episode is said), its rank by SIF word vectors (sif.ts), its
 * closeness to the brief by a sentence model (sentence-model.ts), its quality, its place and length
 * (brief-features.ts). A brief whose best moment is not close enough by the sentence model gets no
 * answer at all (the gate); further answers must cover enough of the brief by words, or be close by
 * meaning. Show business (intro, thanks, sponsor read, sign-off) counts nothing.
 */
import { briefRows, idf, saturate, type BriefSentence, type BriefWindow } from "./brief-features.js";
import { briefLogit, shippedBriefWeights, type BriefWeights } from "./brief-weights.js";
import { contentTerms } from "./meaning.js";
import { rankNormal } from "./normal.js";
import { placeIn } from "./position.js";
import { sentenceVector } from "./sentence-model.js";

export { BRIEF_FEATURES } from "./brief-features.js";
export { answersTo, pickAnswers, withAnswer, type Answer } from "./answers.js";

/** The stemmed content words of a text, in order (repeats kept: they are term frequencies). */
export const briefTerms = (text: string): string[] => contentTerms(text).map((t) => t.stem);

interface HasWords {
  words: Array<{ text: string }>;
}
const _terms = new WeakMap<object, string[]>();
const termsOf = (w: HasWords) => {
  let v = _terms.get(w);
  if (!v) _terms.set(w, (v = briefTerms(w.words.map((x) => x.text).join(" "))));
  return v;
};

/**
 * Lexical BM25 of each window against the brief, the candidate windows being the documents: term
 * frequencies, lengths and document frequencies are all counted over windows.
 */
export function bm25(windows: HasWords[], about: string): number[] {
  const query = [...new Set(briefTerms(about))];
  if (!query.length || !windows.length) return windows.map(() => 0);
  const tfs = windows.map((w) => {
    const tf = new Map<string, number>();
    for (const t of termsOf(w)) tf.set(t, (tf.get(t) ?? 0) + 1);
    return tf;
  });
  const lens = windows.map((w) => w.words.length);
  const avg = lens.reduce((a, c) => a + c, 0) / lens.length;
  const weights = new Map(query.map((q) => [q, idf(windows.length, tfs.filter((tf) => tf.has(q)).length)] as const));
  return tfs.map((tf, i) =>
    query.reduce((s, q) => s + (tf.get(q) ? weights.get(q)! * saturate(tf.get(q)!, lens[i]!, avg) : 0), 0),
  );
}

/**
 * The share of a window's time spent outside the passage that answers the brief: sentences before
 * the first and after the last one that `hits`. An answer should be as long as the matching
 * passage, not padded out to the longest clip allowed.
 */
export function edgeWaste(w: BriefWindow, query: Set<string> | ((s: BriefSentence) => boolean)): number {
  const hits = typeof query === "function" ? query : (s: BriefSentence) => termsOf(s).some((t) => query.has(t));
  const hit = w.sentences.map(hits);
  const first = hit.indexOf(true);
  if (first < 0) return 1;
  const last = hit.lastIndexOf(true);
  const span = w.sentences[last]!.end - w.sentences[first]!.start; // first <= last < length
  const len = Math.max(0.001, w.end - w.start);
  // A fifth of the window goes free: a passage's set-up or its conclusion rarely repeats the terms.
  return Math.max(0, 1 - span / len - 0.2);
}

export interface BriefScore {
  value: number;
  /** "matches the brief: …", when the window answers the brief. */
  reason?: string;
  relevant: boolean;
}

/**
 * The least share of the brief's weight a candidate other than the best must cover (each brief word
 * counted up to once, by its own word or one of its near words in the episode) to be an answer.
 */
export const MIN_COVER = 0.1;
/** Or it may answer by meaning: among the top quarter of the candidates by the fitted score, covering some. */
const SEM_RANK = 0.75;
/** Or by its place, for a brief that names one ("at the end of the show"), where the fit is this good. */
const PLACED = 0.8;

export interface BriefOptions {
  /** Sentence vectors embedded ahead (sentence-model.ts); without them the words-only weights score. */
  vector?: (text: string) => Float32Array | undefined;
  /** Each candidate's quality, known ahead, so that the best one sets the scale. */
  qualities?: number[];
  /** The fitted weights: the shipped ones when absent. */
  weights?: BriefWeights;
}

/**
 * Scores candidates (the episode's moments, moments.ts) against a brief: call the result with a
 * candidate's index and its overall quality (0–1). The value is the candidate's fitted chance of
 * being the answer against the best candidate's (1 for the best), so it reads the same in any episode.
 */
export function briefScorer(
  windows: BriefWindow[],
  about: string,
  duration = Math.max(0, ...windows.map((w) => w.end)),
  options: BriefOptions = {},
): (i: number, quality: number) => BriefScore {
  const fitted = options.weights ?? shippedBriefWeights();
  const rows = briefRows(windows, about, duration, options.vector ?? sentenceVector);
  const total = rows.weights.reduce((a, c) => a + c, 0);
  const withModel = rows.model && !!fitted;
  // The gate: an episode whose best moment says nothing like the brief answers nothing.
  const refused = withModel && rows.best.mean < fitted!.gate.threshold;
  const place = placeIn(about);
  const scoreOf = (i: number, quality: number) => {
    const x = [...rows.x[i]!];
    x[2] = quality;
    if (!fitted) return x[0]! + x[1]!;
    return briefLogit(withModel ? fitted.with_model : fitted.words_only, x);
  };
  // The best candidate sets the scale, and each one's rank among the others says whether it is
  // close enough by meaning to be a further answer.
  const upfront = windows.map((_, i) => scoreOf(i, options.qualities?.[i] ?? 0.5));
  const top = Math.max(...upfront);
  const rank = rankNormal(upfront);
  return (i, quality) => {
    if (refused || total <= 0) return { value: 0.45 * quality, relevant: false };
    const z = scoreOf(i, quality);
    const cover = rows.cover[i]!;
    const close = (rank[i]! >= SEM_RANK || (!!place && rows.fit[i]! >= PLACED)) && cover > 0;
    if (cover < MIN_COVER && !close && !(withModel && rows.x[i]![6]! >= fitted!.gate.threshold))
      return { value: 0.45 * quality, relevant: false };
    const value = Math.exp(Math.min(0, z - top));
    const matched = rows.soft.brief.filter((_, k) => rows.perWindow[i]!.tf[k]! >= 0.5).map((q) => q.word);
    return { value, reason: `matches the brief: ${matched.slice(0, 4).join(", ") || "by meaning"}`, relevant: true };
  };
}
