/**
 * What one sentence says, as named features a reviewer can read: read from wink-nlp's parts of
 * speech, entities and question syntax, plus small cue sets where no library helps (discourse
 * markers, and the fixed phrases of show business: sponsor reads, greetings, sign-offs; the sets
 * are in feature-cues.ts). The window scorer (score.ts) combines these into hook, coherence,
 * payoff and delivery.
 */
import {
  ANNOUNCED,
  BACK_REFERENCES,
  BE,
  CAUSAL,
  COMPARATIVE,
  CONNECTORS,
  CONTRAST,
  DANGLING_PRONOUNS,
  DRIFT,
  HEDGES,
  PROMISE_CUES,
  SETUP_CUES,
  SHOW_CUES,
  SUPERLATIVE_IRREGULAR,
  SWEEPING,
  VAGUE_ADJ,
  VAGUE_NOUNS,
} from "./feature-cues.js";
import { analyse, type Analysis, type Token } from "./nlp.js";
import type { Sentence } from "./text.js";

export { SHOW_CUES } from "./feature-cues.js";

export interface Facts {
  a: Analysis;
  words: number;
  question: boolean;
  numbers: number;
  names: number;
  contrast: number;
  causal: number;
  superlative: boolean;
  sweeping: boolean;
  /** Weighs one thing against another ("more damage than any bad teacher"). */
  comparison: boolean;
  /** Share of words that are pronouns: chat is full of "I", "you", "it". */
  pronounRatio: number;
  /** Share of words that carry content (nouns, proper nouns, numbers, adjectives). */
  contentRatio: number;
  /** Kind of show business, when the sentence is some. */
  show?: string;
  setup: boolean;
  promise: boolean;
  /** Tells the listener what to do: an imperative ("Stop watching the clock") or "you should". */
  advice: boolean;
  /** A declarative general statement: a number, a superlative, a sweeping word or a contrast. */
  claim: boolean;
  /** The opening word that depends on talk before the sentence ("And", "It", "As I said"). */
  dangling?: string;
  /** Hedges, drift markers and vague nouns in the sentence. */
  hedges: number;
  /** The stronger of those: drift, tag questions, vague "a funny word", lists of nouns. */
  drift: number;
  /** A list of nouns with hardly a verb ("Strangers, friends, publishers, all sorts"). */
  list: boolean;
}

const has = (text: string, cues: string[]) => cues.find((c) => text.includes(` ${c} `));
const WORDY = (t: Token) => t.pos !== "PUNCT" && t.pos !== "SYM";

const _facts = new WeakMap<Sentence, Facts>();
export function facts(s: Sentence): Facts {
  let f = _facts.get(s);
  if (!f) _facts.set(s, (f = readFacts(s.text)));
  return f;
}

export function readFacts(text: string): Facts {
  const a = analyse(text);
  const toks = a.tokens.filter(WORDY);
  const n = Math.max(1, toks.length);
  const norm = toks.map((t) => t.normal);
  const line = ` ${norm.join(" ").replace(/ (n't|'s|'re|'ll|'m|'ve)/g, "$1")} `;
  const lowText = ` ${text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}' %]+/gu, " ")
    .replace(/\s+/g, " ")} `;
  const count = (pred: (t: Token) => boolean) => toks.filter(pred).length;
  const numbers = count((t) => t.pos === "NUM") + a.entities.filter((e) => ["PERCENT", "MONEY"].includes(e)).length;
  const names = count((t) => t.pos === "PROPN");
  const contrast = norm.filter((t) => CONTRAST.has(t)).length;
  // "so" opening a sentence is a filler, not a cause.
  const causal =
    norm.filter((t, i) => CAUSAL.has(t) && !(t === "so" && i === 0)).length +
    (has(line, ["that's why", "which means", "turns out", "the reason"]) ? 1 : 0);
  const superlative = toks.some(
    (t) =>
      (t.pos === "ADJ" || t.pos === "ADV") &&
      (SUPERLATIVE_IRREGULAR.has(t.normal) || (/est$/.test(t.normal) && t.normal.length > 5)),
  );
  // "No" as a determiner makes a universal negative ("no such thing", "no one reads it"), as sweeping as "every".
  const sweeping = norm.some((t) => SWEEPING.has(t)) || toks.some((t) => t.normal === "no" && t.pos === "DET");
  // A comparison ("does more damage than", "cheaper than") weighs one thing against another: a tension.
  const comparison = toks.some(
    (t, i) =>
      t.normal === "than" &&
      toks.slice(Math.max(0, i - 4), i).some((p) => COMPARATIVE.test(p.normal) && (p.pos === "ADJ" || p.pos === "ADV")),
  );
  let show: string | undefined;
  for (const [kind, cues] of Object.entries(SHOW_CUES)) if (has(lowText, cues) || has(line, cues)) show ??= kind;
  if (a.entities.some((e) => e === "URL" || e === "EMAIL")) show ??= "sponsor read";
  const lead = _leadIndex(toks);
  const first = toks[lead];
  const imperative =
    !!first &&
    !a.question &&
    (first.pos === "VERB" || (first.normal === "do" && toks[lead + 1]?.normal === "not")) &&
    lead === 0;
  const advice =
    imperative ||
    !!has(line, ["you should", "you need to", "you have to", "you want to", "make sure", "the trick is", "don't"]);
  // A line that names what comes and stops ("And then comes the strangest part."): the part is next.
  const announces = n <= 8 && ANNOUNCED.test(text.trim());
  const setup = /:\s*$/.test(text.trim()) || (!!has(line, SETUP_CUES) && n <= 8) || announces;
  const opening = norm[0] ?? "";
  let dangling: string | undefined;
  if (CONNECTORS.has(opening)) dangling = opening;
  else if (has(` ${norm.slice(0, 4).join(" ")} `, BACK_REFERENCES))
    dangling = has(` ${norm.slice(0, 4).join(" ")} `, BACK_REFERENCES);
  // Existential "there is/are" ("There's no such thing as…") points at nothing before it.
  else if (
    DANGLING_PRONOUNS.has(opening) &&
    (toks[1]?.pos === "AUX" || toks[1]?.pos === "VERB") &&
    !(opening === "there" && BE.has(toks[1]?.normal ?? ""))
  )
    dangling = opening;
  return {
    a,
    words: toks.length,
    question: a.question,
    numbers,
    names,
    contrast,
    causal,
    superlative,
    sweeping,
    comparison,
    pronounRatio: count((t) => t.pos === "PRON") / n,
    contentRatio: count((t) => ["NOUN", "PROPN", "NUM", "ADJ"].includes(t.pos)) / n,
    show,
    setup,
    promise: !!has(line, PROMISE_CUES),
    advice,
    claim:
      !a.question &&
      toks.length >= 5 &&
      toks.some((t) => t.pos === "VERB" || t.pos === "AUX") &&
      (numbers > 0 || superlative || sweeping || comparison || contrast > 0),
    dangling,
    hedges:
      HEDGES.filter((h) => lowText.includes(` ${h} `)).length +
      // "a big thing", "a whole world": an indefinite, an adjective, a vague noun ("the worst thing" is specific).
      (toks.some(
        (t, i) =>
          VAGUE_NOUNS.has(t.normal) && toks[i - 1]?.pos === "ADJ" && ["a", "an"].includes(toks[i - 2]?.normal ?? ""),
      )
        ? 1
        : 0) +
      (/\b(really|of course)[.!]?\s*$/i.test(text.trim()) ? 1 : 0),
    list:
      (text.match(/,/g) ?? []).length >= 3 &&
      count((t) => t.pos === "VERB" || t.pos === "AUX" || t.pos === "SCONJ") <= 1,
    drift:
      DRIFT.filter((h) => lowText.includes(` ${h} `) || line.includes(` ${h} `)).length +
      (toks.some(
        (t, i) =>
          t.pos === "NOUN" &&
          VAGUE_ADJ.has(toks[i - 1]?.normal ?? "") &&
          ["a", "an"].includes(toks[i - 2]?.normal ?? ""),
      )
        ? 1
        : 0) +
      // A string of nouns with no verb to say anything about them ("courtrooms witnesses questions answers").
      (toks.some((_, i) => i >= 3 && toks.slice(i - 3, i + 1).every((t) => t.pos === "NOUN" || t.pos === "PROPN")) &&
      count((t) => t.pos === "VERB") <= 1
        ? 1
        : 0),
  };
}

/** Index of the first token after lead-in words ("So,", "Well", "Okay"). */
function _leadIndex(toks: Token[]): number {
  let i = 0;
  while (
    i < toks.length &&
    (toks[i]!.pos === "INTJ" ||
      ["so", "well", "okay", "ok", "now", "alright", "then", "just"].includes(toks[i]!.normal))
  )
    i++;
  return i;
}

/**
 * Chat with little information: mostly pronouns and function words, no numbers or names. Small
 * talk ("how did you get started", "how was your week") reads like this; a point being made does not.
 */
export const isLowInformation = (f: Facts) =>
  f.words >= 4 && f.numbers === 0 && f.names === 0 && f.contentRatio < 0.22 && f.pronounRatio >= 0.15;

/** Information carried per sentence: numbers, names, contrast and causal words. */
export const density = (f: Facts) => f.numbers + f.names * 0.5 + f.contrast + f.causal;

/** A sentence a clip must not end on: a question, or a set-up of what comes next. */
export const endsOpen = (s: Sentence) => {
  const f = facts(s);
  return f.question || f.setup;
};
