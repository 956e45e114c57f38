/**
 * Scoring of one candidate window: four sub-scores a reviewer can check, each 0..1 with a one-line
 * reason (hook, coherence, payoff, delivery; in subscores.ts), and the overall quality that ranks
 * windows, with its penalties. The episode statistics they are relative to are read in stats.ts;
 * the sentence-level features they read are named in features.ts; where topics change, in segment.ts.
 */
import { facts, isLowInformation } from "./features.js";
import type { EpisodeStats } from "./stats.js";
import { sentenceShape, shapeOf } from "./structure.js";
import { clamp01, coherence, delivery, hook, payoff } from "./subscores.js";
import { windowFeatures } from "./rank-features.js";
import type { Scored, SubScore, Window } from "./window.js";

export { buildStats, contentStems, type EpisodeStats } from "./stats.js";
export { endsMidSentence, type Scored, type SubScore, type SubScores, type Window } from "./window.js";

/** How the sub-scores make the overall quality, before the show-business and small-talk penalties. */
export const WEIGHTS = { hook: 0.27, coherence: 0.3, payoff: 0.3, delivery: 0.07, length: 0.06 };

/**
 * The episode's framing: a conversation opens with a warm-up (the welcome, the guest's week, how
 * they started) and closes with a wrap-up (results, thanks, next week), rich in numbers and stories
 * and seldom what a listener shares. A window pays FRAMING.cost times its share of time in the
 * opening `head` or the closing `tail` of the recording (shares of its length, at most `maxHead`
 * and `maxTail` seconds), in recordings of at least `min` seconds; shorter ones get to the point.
 */
export const FRAMING = { cost: 0.12, head: 0.12, tail: 0.08, maxHead: 300, maxTail: 180, min: 480 };

/** Share of the window's time in the episode's warm-up or wrap-up (0 in short recordings). */
function framingShare(w: Window, stats: EpisodeStats): number {
  const d = stats.duration;
  if (d < FRAMING.min) return 0;
  const warmUp = Math.min(d * FRAMING.head, FRAMING.maxHead);
  const wrapUp = d - Math.min(d * FRAMING.tail, FRAMING.maxTail);
  const head = Math.max(0, Math.min(w.end, warmUp) - w.start);
  const tail = Math.max(0, w.end - Math.max(w.start, wrapUp));
  return (head + tail) / Math.max(1, w.end - w.start);
}

/** Scores a window's quality, independent of any search brief. */
export function scoreWindow(w: Window, stats: EpisodeStats, target: number, range: number): Scored {
  const shape = shapeOf(w.sentences);
  const h = hook(w, shape);
  const c = coherence(w, stats);
  const p = payoff(w, stats, shape);
  const d = delivery(w, stats);
  const length = clamp01(1 - Math.abs(w.duration - target) / Math.max(1, range));
  const all = w.sentences.map(facts);
  const words = Math.max(
    1,
    all.reduce((a, f) => a + f.words, 0),
  );
  const reasons = [h.reason, c.reason, p.sub.reason];
  // Penalties: show business anywhere, and chat that carries little information.
  const show = [...new Set(all.flatMap((f) => (f.show ? [f.show] : [])))];
  const showShare = all.reduce((a, f) => a + (f.show ? f.words : 0), 0) / words;
  const showPenalty = show.length ? Math.min(0.45, 0.12 * all.filter((f) => f.show).length + 0.3 * showShare) : 0;
  if (show.length) reasons.push(`contains show business: ${show.join(", ")}`);
  // Chat: pronoun-heavy talk with nothing in it. A story told in pronouns is not chat.
  const chatShare =
    all.reduce((a, f, i) => a + (isLowInformation(f) && !sentenceShape(w.sentences[i]!).past ? f.words : 0), 0) / words;
  const chatPenalty = chatShare > 0.3 && !shape.kinds.length ? (0.35 * (chatShare - 0.3)) / 0.7 + 0.05 : 0;
  if (chatPenalty) reasons.push(`chatty, little information (${Math.round(chatShare * 100)}% of the words)`);
  // Rambling: hedged, list-like talk that circles a subject without making a point about it.
  // Drift (lists of nouns, tag questions, "anyway") counts in full wherever it is; weak hedges by rate.
  const hedges = all.reduce((a, f) => a + f.hedges + (f.list ? 1 : 0), 0);
  const drift = all.reduce((a, f) => a + f.drift + (f.list ? 1 : 0), 0);
  const rate = hedges / all.length;
  const rambling = Math.min(0.35, (rate > 0.15 ? rate * 0.4 : 0) + (drift >= 2 ? 0.06 * drift : 0));
  if (rambling) reasons.push(`rambles: ${hedges} hedges, ${drift} signs of drift in ${all.length} sentences`);
  const framing = framingShare(w, stats);
  const framePenalty = FRAMING.cost * framing;
  if (framing >= 0.5) reasons.push(`in the episode's ${w.start < stats.duration / 2 ? "warm-up" : "wrap-up"}`);
  // The hand-set blend: used where no fitted ranker applies (a whole short recording, the llm engine's
  // checks); candidatesOf (heuristic.ts) replaces it with the ranker's score.
  const quality =
    WEIGHTS.hook * h.value +
    WEIGHTS.coherence * c.value +
    WEIGHTS.payoff * p.sub.value +
    WEIGHTS.delivery * d.value +
    WEIGHTS.length * length -
    showPenalty -
    chatPenalty -
    rambling -
    framePenalty;
  const features = windowFeatures(w, stats, shape, {
    hook: h.value,
    coherence: c.value,
    payoff: p.sub.value,
    delivery: d.value,
    length,
    show: showPenalty,
    chat: chatPenalty,
    rambling,
    framing,
    blend: quality,
  });
  const pct = (s: SubScore) => ({ value: Math.round(s.value * 100), reason: s.reason });
  return {
    quality,
    reasons,
    features,
    keyTerms: p.keyTerms,
    scores: { hook: pct(h), coherence: pct(c), payoff: pct(p.sub), delivery: pct(d) },
  };
}
