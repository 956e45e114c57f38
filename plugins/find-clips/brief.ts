/**
 * Search mode: how well each of the episode's moments (moments.ts) answers a brief (`about`),
 * blended with the moment's quality so that a relevant but weak passage does not beat a relevant
 * strong one.
 *
 * Relevance blends two ranks among the moments: BM25 whose term frequencies are soft (meaning.ts: a
 * brief word counts where it is said and, partly, where one of its nearest words in the episode is
 * said), and closeness by meaning (sif.ts: SIF-weighted word vectors summed over the moment).
 * Generic words earn nothing, show business (intro, thanks, sponsor read, sign-off) counts nothing,
 * and a moment must cover enough of the brief by words, or be among the closest by meaning and cover
 * some, to be an answer at all: a brief that matches nothing gets fewer answers, never the intro.
 */
import { facts } from "./features.js";
import { contentTerms, cosine, softCounts, type SoftCounts } from "./meaning.js";
import { rankNormal } from "./normal.js";
import { placeFit, placeIn } from "./position.js";
import { sifVectors } from "./sif.js";
import type { Sentence } from "./text.js";

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

const K1 = 1.2;
const B = 0.75;
const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
const saturate = (tf: number, len: number, avg: number) =>
  (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / Math.max(1, avg)));

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

interface BriefSentence extends HasWords {
  start: number;
  end: number;
}
interface BriefWindow extends HasWords {
  sentences: BriefSentence[];
  start: number;
  end: number;
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
 * The least share of the brief's weight a candidate must cover (each brief word counted up to once,
 * by its own word or one of its near words in the episode) to be an answer by words alone.
 */
export const MIN_COVER = 0.1;
/**
 * A candidate that covers less may still answer by meaning: when it is among the top quarter of the
 * episode's candidates by closeness of meaning to the brief and covers some of it.
 */
const SEM_RANK = 0.75;
/** The weight of closeness by meaning against the (soft) word match, each as a rank in the episode. */
const BY_MEANING = 0.5;
/**
 * Quality's part in the answer: relevance × (1 − QUALITY + QUALITY × quality). Among moments that
 * match about as well, the better clip wins, and a rambling decoy that repeats the brief's words
 * does not outrank the moment on words alone (measured: quality as a mere tie-breaker lost 2 of 51
 * tuning briefs).
 */
const QUALITY = 0.65;

/** The weight of a brief's place ("at the end of the show") against what it says, and the fit that is "there". */
const PLACE = 0.4;
const PLACED = 0.8;

/** Kinds of passage that never answer a topical brief, whatever words they share with it. */
const NEVER_ANSWERS = /intro|greeting|thanks|biograph|housekeeping|logistics|sponsor|sign-off|outro|advert/;

/** Show business, by the sentence's own kind when one is set, else by its show-business cues. */
function _isShow(s: BriefSentence): boolean {
  const kind = (s as { kind?: unknown }).kind;
  if (typeof kind === "string") return NEVER_ANSWERS.test(kind);
  const sentence = s as Partial<Sentence>;
  return typeof sentence.text === "string" && typeof sentence.index === "number" && !!facts(sentence as Sentence).show;
}

/** Each candidate's soft counts, summed over its sentences, with the brief words' weights and meaning. */
function _windowCounts(windows: BriefWindow[], about: string) {
  const sentences = [...new Set(windows.flatMap((w) => w.sentences))];
  const at = new Map(sentences.map((s, i) => [s, i]));
  const texts = sentences.map((s) => s.words.map((w) => w.text).join(" "));
  const skip = (i: number) => _isShow(sentences[i]!);
  const soft: SoftCounts = softCounts(about, texts, skip);
  // A brief word said (or meant) in most sentences tells passages apart no better than "the".
  const n = sentences.length;
  const weights = soft.brief.map((q, k) => {
    const df = soft.counts.reduce((a, row) => a + Math.min(1, row[k]!), 0);
    return idf(n, df) * q.rarity;
  });
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
  // Closeness by meaning: the moment's whole vector against the brief's. Its single closest sentence
  // was tried in a blend too (30% and 50%) and lost tuning briefs: a moment's set-up and colour
  // carry its topic as much as its point does.
  const closeness = windows.map((w) => {
    if (!meaning.brief) return 0;
    const v = new Float32Array(meaning.brief.length);
    for (const s of w.sentences) {
      const sv = meaning.sentences[at.get(s)!]!;
      for (let d = 0; d < v.length; d++) v[d]! += sv[d]!;
    }
    return cosine(meaning.brief, v);
  });
  return { soft, weights, perWindow, closeness };
}

/**
 * Scores candidates (the episode's moments, moments.ts) against a brief: call the result with a
 * candidate's index and its overall quality (0–1). Soft BM25 and closeness by meaning are each
 * turned into a rank among the candidates before they are blended, so neither scale decides (a
 * cosine's spread differs from episode to episode, BM25's with the brief's length); the blend is
 * then weighed by quality.
 */
export function briefScorer(
  windows: BriefWindow[],
  about: string,
  duration = Math.max(0, ...windows.map((w) => w.end)),
): (i: number, quality: number) => BriefScore {
  const { soft, weights, perWindow, closeness } = _windowCounts(windows, about);
  const total = weights.reduce((a, c) => a + c, 0);
  const avg = perWindow.reduce((a, w) => a + w.len, 0) / Math.max(1, perWindow.length);
  const rel = perWindow.map(({ tf, len }) =>
    tf.reduce((s, c, k) => s + (c ? weights[k]! * saturate(c, len, avg) : 0), 0),
  );
  const cover = perWindow.map(({ tf }) =>
    total ? tf.reduce((s, c, k) => s + weights[k]! * Math.min(1, c), 0) / total : 0,
  );
  const byWords = rankNormal(rel);
  const byMeaning = rankNormal(closeness);
  // A brief that places its moment ("told at the end of the show") weighs each candidate by how well
  // its place fits; one in that place may answer on a little of the brief's words.
  const place = placeIn(about);
  const fit = windows.map((w) => (place && duration > 0 ? placeFit(place, (w.start + w.end) / 2 / duration) : 1));
  const mixed = rel.map(
    (_, i) => ((1 - BY_MEANING) * byWords[i]! + BY_MEANING * byMeaning[i]!) * (1 - PLACE + PLACE * fit[i]!),
  );
  const maxRel = Math.max(0, ...mixed);
  return (i, quality) => {
    const r = maxRel > 0 && total > 0 ? mixed[i]! / maxRel : 0;
    const close = (byMeaning[i]! >= SEM_RANK || (!!place && fit[i]! >= PLACED)) && cover[i]! > 0;
    if (r <= 0 || (cover[i]! < MIN_COVER && !close)) return { value: 0.45 * quality, relevant: false };
    const value = r * (1 - QUALITY + QUALITY * quality);
    const matched = soft.brief.filter((_, k) => perWindow[i]!.tf[k]! >= 0.5).map((q) => q.word);
    return { value, reason: `matches the brief: ${matched.slice(0, 4).join(", ") || "by meaning"}`, relevant: true };
  };
}
