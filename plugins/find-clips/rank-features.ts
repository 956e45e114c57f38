/**
 * What the fitted ranker (ranker.ts) looks at in a candidate window, as named numbers: the four
 * sub-scores and the penalties (score.ts, subscores.ts), the passage's shape (structure.ts), how its
 * first and last sentences read (features.ts), where it sits among the episode's topics
 * (segment.ts), its length and its place in the recording. None of them reads a label; the fit
 * (scripts/fit-find-clips.mjs) learns how much each weighs from episodes by other writers.
 */
import { density, facts, isLowInformation, type Facts } from "./features.js";
import { speakerOf, type EpisodeStats } from "./stats.js";
import { sentenceShape, type Shape } from "./structure.js";
import type { Window } from "./window.js";

/** The sub-scores and penalties score.ts reads for a window, each 0..1 (penalties as subtracted). */
export interface Parts {
  hook: number;
  coherence: number;
  payoff: number;
  delivery: number;
  length: number;
  show: number;
  chat: number;
  rambling: number;
  framing: number;
  /** The hand-set blend of all of these (score.ts's WEIGHTS and penalties). */
  blend: number;
}

/** The features' names, in the order of the vector windowFeatures returns. */
export const FEATURES = [
  "hook",
  "coherence",
  "payoff",
  "delivery",
  "length fit",
  "show business",
  "chat",
  "rambling",
  "warm-up or wrap-up",
  "shape",
  "claim and reason",
  "story and twist",
  "question and answer",
  "exchange that builds",
  "lands",
  "opens on a question",
  "opens on a claim",
  "opens on advice or a promise",
  "opens dangling",
  "opens on a number or superlative",
  "opens a story",
  "opens on chat",
  "ends on a claim or advice",
  "ends on a contrast",
  "ends short",
  "ends on a reason",
  "turns",
  "speakers",
  "sentences",
  "starts a topic",
  "topic depth at start",
  "crosses a topic",
  "next topic starts after",
  "speaker goes on after",
  "after its own set-up",
  "middle of the recording",
  "seconds",
  "distance from a minute",
  "numbers per sentence",
  "names per sentence",
  "density",
  "questions",
  "hedges per sentence",
  "drift",
  "pronouns",
  "content words",
  "first person past",
  "pause before",
  "pause after",
  "starts a turn",
  "ends a turn",
  "answers the question before",
  "hand-set score",
] as const;
export type FeatureName = (typeof FEATURES)[number];

const share = (xs: Facts[], p: (f: Facts) => boolean) => xs.filter(p).length / Math.max(1, xs.length);
const b = (v: boolean) => (v ? 1 : 0);
const avg = (xs: Facts[], k: (f: Facts) => number) => xs.reduce((a, f) => a + k(f), 0) / Math.max(1, xs.length);

/** The window's feature vector, in FEATURES order. */
export function windowFeatures(w: Window, stats: EpisodeStats, shape: Shape, parts: Parts): number[] {
  const ss = w.sentences;
  const first = ss[0]!;
  const last = ss[ss.length - 1]!;
  const all = ss.map(facts);
  const f0 = all[0]!;
  const fl = all[all.length - 1]!;
  const sh0 = sentenceShape(first);
  const { boundary, depth } = stats.topics;
  const turns = ss.filter((s, i) => i > 0 && speakerOf(s) !== speakerOf(ss[i - 1]!)).length;
  const speakers = new Set(ss.map(speakerOf)).size;
  const after = stats.sentences[last.index + 1];
  const before = stats.sentences[first.index - 1];
  const past = ss.filter((s) => sentenceShape(s).past && /\b(i|we|my)\b/i.test(s.text)).length;
  const kinds = shape.kinds.join(" ");
  const v: Record<FeatureName, number> = {
    hook: parts.hook,
    coherence: parts.coherence,
    payoff: parts.payoff,
    delivery: parts.delivery,
    "length fit": parts.length,
    "show business": parts.show,
    chat: parts.chat,
    rambling: parts.rambling,
    "warm-up or wrap-up": parts.framing,
    shape: shape.value,
    "claim and reason": b(/claim and its reason|advice and why/.test(kinds)),
    "story and twist": b(kinds.includes("story")),
    "question and answer": b(kinds.includes("question")),
    "exchange that builds": b(kinds.includes("exchange")),
    lands: b(shape.landing),
    "opens on a question": b(f0.question),
    "opens on a claim": b(f0.claim),
    "opens on advice or a promise": b(f0.advice || f0.promise),
    "opens dangling": b(!!f0.dangling),
    "opens on a number or superlative": b(f0.numbers > 0 || f0.superlative),
    "opens a story": b(sh0.past && !f0.dangling),
    "opens on chat": b(isLowInformation(f0)),
    "ends on a claim or advice": b(fl.claim || fl.advice),
    "ends on a contrast": b(fl.contrast > 0),
    "ends short": b(fl.words <= 14),
    "ends on a reason": b(sentenceShape(last).reason),
    turns: Math.min(1, turns / 6),
    speakers: Math.min(1, (speakers - 1) / 3),
    sentences: Math.min(1, Math.log1p(ss.length) / Math.log(40)),
    "starts a topic": b(!!boundary[first.index]),
    "topic depth at start": depth[first.index] ?? 0,
    "crosses a topic": b(ss.some((s, i) => i > 0 && boundary[s.index] && (depth[s.index] ?? 0) >= 0.5)),
    "next topic starts after": b(!after || !!boundary[after.index]),
    "speaker goes on after": b(!!after && speakerOf(after) === speakerOf(last) && !boundary[after.index]),
    "after its own set-up": b(!!before && speakerOf(before) === speakerOf(first) && facts(before).setup),
    "middle of the recording": 1 - Math.abs(((w.start + w.end) / 2 / Math.max(1, stats.duration)) * 2 - 1),
    seconds: w.duration / 150,
    "distance from a minute": Math.min(2, Math.abs(w.duration - 60) / 60),
    "numbers per sentence": Math.min(
      2,
      avg(all, (f) => f.numbers),
    ),
    "names per sentence": Math.min(
      2,
      avg(all, (f) => f.names),
    ),
    density: Math.min(3, avg(all, density)),
    questions: share(all, (f) => f.question),
    "hedges per sentence": Math.min(
      2,
      avg(all, (f) => f.hedges + (f.list ? 1 : 0)),
    ),
    drift:
      Math.min(
        5,
        all.reduce((a, f) => a + f.drift, 0),
      ) / 5,
    pronouns: avg(all, (f) => f.pronounRatio),
    "content words": avg(all, (f) => f.contentRatio),
    "first person past": past / Math.max(1, ss.length),
    "pause before": before ? Math.min(3, first.start - before.end) : 3,
    "pause after": after ? Math.min(3, after.start - last.end) : 3,
    "starts a turn": b(!before || speakerOf(before) !== speakerOf(first)),
    "ends a turn": b(!after || speakerOf(after) !== speakerOf(last)),
    "answers the question before": b(!!before && speakerOf(before) !== speakerOf(first) && facts(before).question),
    "hand-set score": parts.blend,
  };
  return FEATURES.map((k) => v[k]);
}

/** The features a ranker reads: each feature as it is, then against the episode's other windows. */
export const RANK_FEATURES = [...FEATURES, ...FEATURES.map((n) => `${n} (against the episode)`)];

/**
 * Each window's features with, appended, the same features standardised over the episode's
 * candidate windows: what stands out in this episode, whatever the writer's or the show's habits
 * (a sports show has numbers everywhere; a sermon has no questions anywhere).
 */
export function againstEpisode(xs: number[][]): number[][] {
  const n = xs.length;
  const d = FEATURES.length;
  const mu = new Array<number>(d).fill(0);
  const sd = new Array<number>(d).fill(0);
  for (const x of xs) for (let k = 0; k < d; k++) mu[k]! += x[k]! / n;
  for (const x of xs) for (let k = 0; k < d; k++) sd[k]! += (x[k]! - mu[k]!) ** 2 / n;
  const scale = sd.map((v) => (Math.sqrt(v) > 1e-9 ? Math.sqrt(v) : 1));
  return xs.map((x) => [...x, ...x.map((v, k) => (v - mu[k]!) / scale[k]!)]);
}
