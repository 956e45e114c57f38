/**
 * What one sentence says, as named features a reviewer can read: read from wink-nlp's parts of
 * speech, entities and question syntax, plus small cue sets where no library helps (discourse
 * markers, and the fixed phrases of show business: sponsor reads, greetings, sign-offs). The window
 * scorer (score.ts) combines these into hook, coherence, payoff and delivery.
 */
import { analyse, type Analysis, type Token } from "./nlp.js";
import type { Sentence } from "./text.js";

/** Discourse markers of contrast and cause: POS tags cannot tell "but" from "and". */
const CONTRAST = new Set([
  "but",
  "however",
  "instead",
  "actually",
  "although",
  "though",
  "yet",
  "whereas",
  "unless",
  "except",
]);
const CAUSAL = new Set(["because", "therefore", "why", "means", "so", "since", "thus", "causes", "leads"]);
/** Quantifiers that turn a statement into a general claim ("most people think…", "nobody tells you"). */
const SWEEPING = new Set([
  "most",
  "every",
  "everyone",
  "everybody",
  "nobody",
  "never",
  "always",
  "all",
  "nothing",
  "everything",
  "only",
]);
/** Comparative forms before "than": "more", "less", "fewer", "better", "worse", or an "-er" adjective. */
const COMPARATIVE = /^(more|less|fewer|better|worse|rather|[a-z]{3,}er)$/;
const SUPERLATIVE_IRREGULAR = new Set(["best", "worst", "most", "biggest"]);

/**
 * Show business by kind, as phrases matched on the lower-cased words. These are conventions of the
 * genre (no model tags a sponsor read), kept short and documented in docs/clips.md.
 */
export const SHOW_CUES: Record<string, string[]> = {
  "sponsor read": [
    "brought to you by",
    "sponsor",
    "sponsored",
    "promo code",
    "use code",
    "code at checkout",
    "dot com",
    "dot io",
    "dot org",
    "percent off",
    "free trial",
    "link in the",
  ],
  greeting: ["welcome to", "welcome back", "hello everyone", "hi everyone", "good morning everyone"],
  thanks: ["thanks for coming", "thanks for having", "thank you for", "thanks so much for", "thanks for joining"],
  introduction: [
    "my guest",
    "i'm your host",
    "joining me",
    "joined by",
    "today we're talking",
    "today is",
    "today we talk",
  ],
  logistics: [
    "before we start",
    "quick break",
    "short break",
    "we're back",
    "we are back",
    "show notes",
    "our website",
    "newsletter",
    "giveaway",
    "subscribe",
    "where can people find",
    "find you online",
    // A call-in host moving the show along: the call that follows is the moment, not the hand-over.
    "back to the phones",
    "on the line",
    "next caller",
    "time for one more",
    "lines are open",
  ],
  "sign-off": [
    "that's all for",
    "that is all for",
    "see you next",
    "thanks for listening",
    "until next time",
    "take care everyone",
  ],
};
/** Lines that set up what follows rather than say it ("Here's the thing."): never a clip's last. */
const SETUP_CUES = [
  "here's the thing",
  "here is the thing",
  "here's what",
  "let me tell you",
  "the thing is",
  "the question is",
  "one more thing",
  "i'll tell you",
  "guess what",
  "here's why",
  "here's how",
  "listen to this",
];
/** A short line that ends on the part it announces: "the strangest part", "the best bit", "the real thing". */
const ANNOUNCED =
  /\b(\w{3,}est|best|worst|most \w+|next|funny|strange|weird|scary|interesting|important|real) (part|bit|thing)\W*$/i;
const PROMISE_CUES = [
  "here's how",
  "here's why",
  "i'll show you",
  "the way to",
  "how to",
  "the trick is",
  "the secret",
  "the key is",
];
/**
 * Hedges and drift markers: rambling talk circles ("I suppose", "it's all a bit of…", "anyway")
 * where a point is made plainly. No tagger marks hedging, so these few phrases stand in.
 */
const HEDGES = [
  "i suppose",
  "i guess",
  "i think",
  "probably",
  "maybe",
  "kind of",
  "sort of",
  "a bit",
  "or something",
  "anyway",
  "in general",
  "all sorts",
  "whatever",
  "you know",
];
/**
 * The stronger signs of circling: drift ("anyway", "or something", "all sorts"), a tag question that
 * asks the listener to agree with nothing ("isn't it", "aren't they"), "of course" and "honestly"
 * as padding. Weak hedges ("I think", "maybe") are common in sharp talk too and weigh less.
 */
const DRIFT = [
  "i suppose",
  "or something",
  "anyway",
  "all sorts",
  "whatever",
  "in general",
  "isn't it",
  "aren't they",
  "doesn't it",
  "don't they",
  "wasn't it",
  "isn't there",
  "of course",
  "honestly",
];
/** Adjectives that, after "a", make the noun vague ("a funny word", "a big subject"). */
const VAGUE_ADJ = new Set(["big", "funny", "strange", "whole", "huge", "interesting", "weird", "odd", "lovely"]);
/** Nouns that name nothing in particular after "a" and an adjective: "a big thing", "a whole topic". */
const VAGUE_NOUNS = new Set(["thing", "things", "stuff", "topic", "world"]);
/** Openings that point back at talk the clip does not hold. */
const BACK_REFERENCES = [
  "as i said",
  "like i said",
  "as we said",
  "going back to",
  "to your point",
  "that's right",
  "exactly",
];
const CONNECTORS = new Set(["and", "so", "but", "because", "or", "then", "also", "which", "plus", "anyway"]);
const DANGLING_PRONOUNS = new Set(["it", "that", "this", "these", "those", "they", "he", "she", "them", "there"]);
const BE = new Set(["is", "'s", "are", "'re", "was", "were", "be", "been"]);

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
