/**
 * A candidate window and what scoring it returns, as score.ts, subscores.ts, titles.ts and the LLM
 * prompt share them, and whether a window stops inside a sentence. Kept apart so the sub-scores and
 * the overall score read the same types without importing each other.
 */
import type { EpisodeStats } from "./stats.js";
import { isTerminal, type Sentence, type Word } from "./text.js";

export interface Window {
  sentences: Sentence[];
  words: Word[];
  start: number;
  end: number;
  pieces: Array<{ start: number; end: number }>;
  duration: number;
  /** The next word after the window, if any (for the "finished thought" check). */
  nextWord?: Word;
}

export interface SubScore {
  value: number;
  reason: string;
}
export type SubScores = { hook: SubScore; coherence: SubScore; payoff: SubScore; delivery: SubScore };

export interface Scored {
  quality: number;
  reasons: string[];
  /** The window's features for the fitted ranker (rank-features.ts), in FEATURES order. */
  features?: number[];
  keyTerms: string[];
  /** Each 0..100 with its reason, as clips.json and the API show them. */
  scores: SubScores;
}

/**
 * Whether a window stops inside a sentence: without a terminal mark when punctuated; otherwise
 * before a pause shorter than the episode's typical pause between sentences.
 */
export function endsMidSentence(w: Window, stats: Pick<EpisodeStats, "punctuated" | "sentencePause">): boolean {
  const last = w.words[w.words.length - 1];
  if (!last) return false;
  if (stats.punctuated) return !isTerminal(last.text);
  const pauseAfter = w.nextWord ? w.nextWord.start - last.end : Infinity;
  return pauseAfter < stats.sentencePause;
}
