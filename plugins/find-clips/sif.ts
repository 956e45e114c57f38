/**
 * Sentence vectors for matching by meaning, after Arora, Liang and Ma (2017), "A simple but
 * tough-to-beat baseline for sentence embeddings": each content word's vector weighted by
 * a / (a + p(w)), p(w) its frequency in English, so the words everyone says weigh little and the
 * rare ones nearly fully. The paper's second step, taking the common component (the first principal
 * direction of the sentence vectors) out of each, is done once for all words instead, when the
 * vectors are built ("all-but-the-top", scripts/build-word-vectors.mjs): taken per episode, it took
 * the episode's own topic with it, and lost a tenth of the tuning briefs.
 */
import { contentTerms, vectorOf, type Term } from "./meaning.js";
import { wordVectors } from "./vectors.js";

/** SIF's smoothing weight; the paper finds 1e-4 to 1e-3 works across tasks. */
const A = 1e-3;

/**
 * p(w) from the word's frequency rank by Zipf's law (p ≈ 0.1 / rank in English text); a word
 * outside the kept 70,000 is rarer still.
 */
export function frequency(word: string): number {
  const rank = wordVectors()?.rank(word);
  return 0.1 / ((rank ?? 140_000) + 10);
}

export const sifWeight = (word: string) => A / (A + frequency(word));

/** The SIF sum of a text's content words (not normalised: its length is the evidence). */
export function sifVector(terms: Term[], dims: number): Float32Array {
  const v = new Float32Array(dims);
  for (const t of terms) {
    const w = vectorOf(t.word);
    if (!w) continue;
    const k = sifWeight(t.word);
    for (let d = 0; d < dims; d++) v[d]! += k * w[d]!;
  }
  return v;
}

export interface SifVectors {
  brief: Float32Array | undefined;
  sentences: Float32Array[];
}

/** The brief's and each sentence's SIF vector; a sentence in `skip` (show business) gets a zero vector. */
export function sifVectors(about: string, sentences: string[], skip: (i: number) => boolean = () => false): SifVectors {
  const dims = wordVectors()?.dims ?? 0;
  const briefTerms = contentTerms(about);
  if (!dims || !briefTerms.length) return { brief: undefined, sentences: sentences.map(() => new Float32Array(dims)) };
  return {
    brief: sifVector(briefTerms, dims),
    sentences: sentences.map((s, i) => (skip(i) ? new Float32Array(dims) : sifVector(contentTerms(s), dims))),
  };
}
