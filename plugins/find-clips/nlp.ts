/**
 * The one wink-nlp instance of the clip finder (its English lite model loads once, ~1 s) and what
 * the scorer reads from it: sentence spans, parts of speech, named entities, noun phrases and
 * whether a sentence is a question, told from its syntax rather than from its first word. Also the
 * stemmed content words (Porter2, the stopword package's English list) that topic segmentation,
 * focus and briefs compare.
 */
import winkNLP from "wink-nlp";
import model from "wink-eng-lite-web-model";
import porter2 from "wink-porter2-stemmer";
import { eng } from "stopword";

export const nlp = winkNLP(model);
const its = nlp.its;

export interface Token {
  /** As written. */
  value: string;
  /** Lower-cased, contractions expanded by the model ("n't" → "not"). */
  normal: string;
  /**
   * Universal POS tag (NOUN, VERB, AUX, PRON, PROPN, NUM, ADJ, ADV, SCONJ, CCONJ, PART, INTJ, DET, ADP, PUNCT, SYM…).
   */
  pos: string;
}

export interface Analysis {
  tokens: Token[];
  /** Tokens that are words (no punctuation or symbols). */
  wordCount: number;
  question: boolean;
  /** Runs of adjectives and nouns that end in a noun ("strong bread flour"), as written. */
  nounPhrases: string[];
  /** Entity types the model found (CARDINAL, PERCENT, MONEY, DATE, URL, EMAIL, …). */
  entities: string[];
  /** Contains a negation ("not", "never", "isn't"). */
  negated: boolean;
}

const STOP = new Set(eng);
export const isStopWord = (t: string) => STOP.has(t);
const WH = new Set(["what", "why", "how", "where", "when", "who", "whom", "which", "whose"]);
const SUBJECT = new Set(["PRON", "NOUN", "PROPN", "DET", "NUM"]);
/** Words a speaker puts before a question ("So, how…", "Okay Hanna, where…"); not part of its syntax. */
const LEAD_IN = new Set(["INTJ", "CCONJ", "PUNCT"]);
const LEAD_WORDS = new Set(["so", "well", "okay", "ok", "now", "alright", "right", "then"]);

const _cache = new Map<string, Analysis>();

/** Parts of speech, entities, noun phrases and the question test for one sentence's text. */
export function analyse(text: string): Analysis {
  const hit = _cache.get(text);
  if (hit) return hit;
  const doc = nlp.readDoc(text);
  const values = doc.tokens().out() as string[];
  const normals = doc.tokens().out(its.normal) as string[];
  const pos = doc.tokens().out(its.pos) as string[];
  const tokens = values.map((value, i) => ({ value, normal: normals[i]!, pos: pos[i]! }));
  const a: Analysis = {
    tokens,
    wordCount: tokens.filter((t) => t.pos !== "PUNCT" && t.pos !== "SYM").length,
    question: isQuestion(tokens, text),
    nounPhrases: nounPhrases(tokens),
    entities: doc.entities().out(its.type) as string[],
    negated: tokens.some((t) => t.normal === "not" || t.normal === "never" || t.normal === "no"),
  };
  if (_cache.size > 20_000) _cache.clear(); // sentences repeat within an episode, not across many
  _cache.set(text, a);
  return a;
}

/**
 * A question by its syntax: a question mark, or subject-verb inversion after the lead-in words:
 * an auxiliary then a subject ("Is it true…", "Do you knead…"), or a wh-word, optionally with its
 * modifier, then an auxiliary ("How long does…", "Where should…"). "When the numbers are bad, we
 * cut the price." has a wh-word but no inversion, so it is a statement.
 */
export function isQuestion(tokens: Token[], text: string): boolean {
  if (/\?["'”’)\]]*\s*$/.test(text)) return true;
  let i = 0;
  // Lead-ins, and a vocative name before a comma ("Hanna, where can…").
  while (
    i < tokens.length &&
    (LEAD_IN.has(tokens[i]!.pos) ||
      LEAD_WORDS.has(tokens[i]!.normal) ||
      (tokens[i]!.pos === "PROPN" && tokens[i + 1]?.value === ","))
  )
    i++;
  const t0 = tokens[i];
  if (!t0) return false;
  const at = (k: number) => tokens[i + k];
  if (t0.pos === "AUX" && t0.normal !== "let") return !!at(1) && SUBJECT.has(at(1)!.pos) && at(1)!.normal !== "not";
  if (WH.has(t0.normal)) {
    let k = 1;
    if (at(k) && ["ADJ", "ADV", "NOUN"].includes(at(k)!.pos)) k++; // how long, which flour, how much
    const aux = at(k);
    return !!aux && aux.pos === "AUX" && !!at(k + 1) && at(k + 1)!.pos !== "PUNCT" && at(k + 1)!.normal !== "not";
  }
  return false;
}

function nounPhrases(tokens: Token[]): string[] {
  const out: string[] = [];
  let run: Token[] = [];
  const flush = () => {
    while (run.length && !["NOUN", "PROPN"].includes(run[run.length - 1]!.pos)) run.pop();
    while (run.length && run[0]!.pos === "NUM") run.shift();
    if (run.length && run.some((t) => !STOP.has(t.normal))) out.push(run.map((t) => t.value).join(" "));
    run = [];
  };
  for (const t of tokens) {
    if (["ADJ", "NOUN", "PROPN", "NUM"].includes(t.pos) && /^[\p{L}\p{N}'-]+$/u.test(t.value)) run.push(t);
    else flush();
  }
  flush();
  return out;
}

/** Character ranges of the sentences wink-nlp finds in a text (abbreviations and decimals kept whole). */
export function sentenceSpans(text: string): Array<[number, number]> {
  const doc = nlp.readDoc(text);
  const values = doc.tokens().out() as string[];
  const spaces = doc.tokens().out(its.precedingSpaces) as string[];
  const offsets: number[] = [];
  let at = 0;
  values.forEach((v, i) => {
    at += spaces[i]!.length;
    offsets.push(at);
    at += v.length;
  });
  const spans: Array<[number, number]> = [];
  // biome-ignore lint/suspicious/noExplicitAny: compromise does not export its sentence type
  doc.sentences().each((s: any) => {
    const [from, to] = s.out(its.span) as unknown as [number, number];
    spans.push([offsets[from]!, offsets[to]! + values[to]!.length]);
  });
  return spans;
}

export const stemWord = (w: string) => porter2(w);

/** Stemmed content words of a text: stop words, numbers and words under three letters dropped. */
export function contentStems(text: string): string[] {
  const toks =
    text
      .toLowerCase()
      .replace(/[’‘]/g, "'")
      .match(/[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu) ?? [];
  return toks.filter((t) => t.length > 2 && !STOP.has(t) && !/^\d+$/.test(t) && !/'/.test(t)).map(porter2);
}
