/**
 * A found clip as the stage writes it to clips.json: its own module so the scorer, briefs and the
 * window search (heuristic.ts, brief.ts) can all name it without importing one another.
 */
import type { SubScores } from "./score.js";

/** A brief's answer and its rank among the answers (0 is the best). */
export interface Answer {
  about: string;
  rank: number;
}

export interface Clip {
  number: number;
  ref: string;
  title: string;
  hook: string;
  start: number;
  end: number;
  duration: number;
  pieces: Array<{ start: number; end: number }>;
  score: { value: number; reasons: string[] };
  /** Hook, coherence, payoff and delivery, each 0..100 with a one-line reason (score.ts). */
  scores?: SubScores;
  about?: string;
  /** The briefs this clip answers, with its rank among each brief's answers (search mode). */
  answers?: Answer[];
}
