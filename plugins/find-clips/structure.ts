/**
 * The shape of a passage: whether it holds a complete thought with a turn in it, the thing people
 * share. Five shapes are read from sentence features (features.ts), never from numbers or names:
 * - claim and reason: a claim or a piece of advice, then the why ("because", "which means");
 * - story and twist: three or more sentences told in the past, and later a turn (but, then, until,
 *   what someone said);
 * - question and answer: a question, and another speaker's answer that makes a claim or a twist;
 * - advice and why: advice with its reason;
 * - an exchange that builds: two or more speakers each taking several turns that answer one another
 *   (a disagreement, a set-up and a punchline).
 * A landing (a short or pointed last statement) completes it. score.ts folds the shape into the
 * payoff and lets numbers and names count only as far as a shape holds them.
 */
import { facts, type Facts } from "./features.js";
import { contentStems } from "./nlp.js";
import type { Sentence } from "./text.js";

const PAST_IRREGULAR = new Set([
  "was",
  "were",
  "had",
  "did",
  "said",
  "told",
  "came",
  "went",
  "got",
  "took",
  "made",
  "found",
  "saw",
  "knew",
  "thought",
  "left",
  "stood",
  "sat",
  "gave",
  "wrote",
  "kept",
  "lost",
  "felt",
  "heard",
  "began",
  "ran",
  "brought",
  "bought",
  "caught",
  "fell",
  "put",
  "met",
  "sent",
  "spent",
  "burned",
  "burnt",
  "became",
  "woke",
  "broke",
  "won",
  "paid",
  "read",
]);
/** Words that turn a story or an argument: what happened next, what was not expected. */
const TURN = new Set(["then", "until", "suddenly", "realised", "realized", "turned", "instead", "only", "finally"]);
/** How a turn in an exchange answers the one before it. */
const RESPONSE = new Set(["but", "and", "if", "then", "no", "yes", "exactly", "so", "well", "right", "maybe"]);

export interface SentenceShape {
  past: boolean;
  turn: boolean;
  reason: boolean;
}

const _shape = new WeakMap<Sentence, SentenceShape>();
export function sentenceShape(s: Sentence): SentenceShape {
  let v = _shape.get(s);
  if (!v) {
    const f = facts(s);
    const toks = f.a.tokens;
    const past = toks.filter(
      (t) =>
        (t.pos === "VERB" || t.pos === "AUX") &&
        (PAST_IRREGULAR.has(t.normal) || (/[a-z]{2}ed$/.test(t.normal) && t.normal !== "need")),
    ).length;
    v = {
      past: past >= 1,
      turn: f.contrast > 0 || toks.some((t) => TURN.has(t.normal)) || /\b(said|says|asked),? /i.test(s.text),
      reason: f.causal > 0 || /\b(here's why|that's why|the reason)\b/i.test(s.text),
    };
    _shape.set(s, v);
  }
  return v;
}

const speakerOf = (s: Sentence) => s.words[0]?.speaker ?? null;

const _responds = new WeakMap<Sentence, boolean>();
const _stems = new WeakMap<Sentence, string[]>();
const stemsOf = (s: Sentence) => {
  let v = _stems.get(s);
  if (!v) _stems.set(s, (v = contentStems(s.text)));
  return v;
};

/**
 * Reads, once per episode, whether each sentence answers the talk just before it: it opens on a
 * response word ("But…", "If I did that…", "And mine…"), holds a contrast, or shares content words
 * with the three sentences before it. A new turn that does not is a change of thread.
 */
export function markResponses(sentences: Sentence[]): void {
  sentences.forEach((s, i) => {
    const f = facts(s);
    const first = f.a.tokens.find((t) => t.pos !== "PUNCT")?.normal ?? "";
    const prior = sentences[i - 1];
    if (rebuts(s)) return void _responds.set(s, true);
    // An answer to the question just asked answers it, whatever its words.
    let v = RESPONSE.has(first) || f.contrast > 0 || (!!prior && facts(prior).question);
    if (!v) {
      const prev = new Set(sentences.slice(Math.max(0, i - 3), i).flatMap(stemsOf));
      v = stemsOf(s).some((t) => prev.has(t));
    }
    _responds.set(s, v);
  });
}

/**
 * A turn that takes up the last one head on: it opens on a response word ("But…", "Then…", "No…"),
 * holds a contrast, or is a short reaction ("That is fair."). Questions and show business do not.
 */
export function rebuts(s: Sentence, reactions = true): boolean {
  const f = facts(s);
  if (f.question || f.show) return false;
  const first = f.a.tokens.find((t) => t.pos !== "PUNCT")?.normal ?? "";
  if (f.words <= 4) return reactions;
  return RESPONSE.has(first) || f.contrast > 0;
}

/** Whether a sentence answers the talk before it (markResponses; true when never read). */
export const responds = (s: Sentence) => _responds.get(s) ?? true;

export interface Shape {
  /** 0..1: how complete a thought with a turn the passage is. */
  value: number;
  /** The shapes found, in words ("a story and its twist"). */
  kinds: string[];
  landing: boolean;
}

const isClaimy = (f: Facts) => f.claim || f.advice || f.comparison;
/** A general statement in the present about a thing, not a person: "A ban without buses is a punishment." */
const aphorism = (f: Facts, sh: SentenceShape) => {
  const toks = f.a.tokens.filter((t) => t.pos !== "PUNCT");
  return (
    !sh.past &&
    !f.question &&
    (toks[0]?.pos === "DET" || toks[0]?.pos === "NOUN") &&
    toks.slice(0, 3).every((t) => t.pos !== "PRON") &&
    toks.some((t) => t.normal === "is" || t.normal === "are")
  );
};

export function shapeOf(ss: Sentence[]): Shape {
  const fs = ss.map(facts);
  const sh = ss.map(sentenceShape);
  const n = ss.length;
  const kinds: string[] = [];
  const statements = ss.map((_, i) => i).filter((i) => !fs[i]!.question);
  // Claim and reason, advice and why: the why comes with or after the claim.
  const firstClaim = fs.findIndex((f) => !f.question && isClaimy(f));
  if (firstClaim >= 0 && sh.some((x, i) => i >= firstClaim && x.reason))
    kinds.push(fs[firstClaim]!.advice ? "advice and why" : "a claim and its reason");
  // A story: several sentences told in the past, and a turn in its second half.
  const past = sh.filter((x) => x.past).length;
  if (past >= 3 && past >= n * 0.4 && sh.some((x, i) => i >= n * 0.4 && x.turn)) kinds.push("a story and its twist");
  // A question and an answer that says something.
  const q = fs.findIndex((f) => f.question);
  if (q >= 0 && q < n - 1) {
    const asker = speakerOf(ss[q]!);
    const answer = ss.slice(q + 1).filter((s) => speakerOf(s) !== asker);
    if (answer.length && answer.some((s) => isClaimy(facts(s)) || sentenceShape(s).turn))
      kinds.push("a question and a pointed answer");
  }
  // An exchange that builds: each new turn answers the last, two speakers at least twice each.
  const turnsBy = new Map<string | null, number>();
  let building = 0;
  let turns = 0;
  ss.forEach((s, i) => {
    if (i > 0 && speakerOf(s) === speakerOf(ss[i - 1]!)) return;
    turnsBy.set(speakerOf(s), (turnsBy.get(speakerOf(s)) ?? 0) + 1);
    if (i > 0) turns++, responds(s) && building++;
  });
  const active = [...turnsBy.values()].filter((v) => v >= 2).length;
  if (turns >= 3 && active >= 2 && building >= turns - 1 && sh.some((x) => x.turn))
    kinds.push("an exchange that builds to a point");
  const lastIdx = statements[statements.length - 1];
  const last = lastIdx === undefined ? undefined : fs[lastIdx];
  const landing =
    !!last &&
    lastIdx === n - 1 &&
    !last.setup &&
    (isClaimy(last) ||
      last.contrast > 0 ||
      (last.words <= 14 && !last.dangling) ||
      sh[lastIdx]!.reason ||
      aphorism(last, sh[lastIdx]!));
  const base = kinds.length === 0 ? 0.15 : kinds.length === 1 ? 0.6 : 0.8;
  return { value: Math.min(1, base + (landing ? 0.2 : 0)), kinds, landing };
}
