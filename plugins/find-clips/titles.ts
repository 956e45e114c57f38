/**
 * Titles a person would post: 3–8 words from the passage's claim or its key noun phrases
 * ("Why most bad sourdough isn't about the recipe"), never a lone word, never from a sponsor read or
 * a web address. In order: the opening question when it is short; the passage's strongest claim,
 * cut to its main clause; its two key noun phrases; the opening sentence, shortened. A candidate with a
 * word the engine heard below 0.5 confidence is passed over (daemon/render/confidence.ts).
 */
import { facts, type Facts } from "./features.js";
import type { Token } from "./nlp.js";
import type { Window } from "./score.js";
import { contentStems } from "./nlp.js";
import { unsureWords } from "../../daemon/render/confidence.js";
import type { Sentence } from "./text.js";

const MIN_WORDS = 3;
const MAX_WORDS = 8;
/** A token that belongs to a web address or a promo: never part of a title. */
const URLISH = /(\.(com|io|org|net|co)\b|www|https?|@|\/)/i;
const LEAD = new Set([
  "so",
  "well",
  "okay",
  "ok",
  "now",
  "and",
  "but",
  "because",
  "yeah",
  "yes",
  "oh",
  "look",
  "honestly",
  "actually",
  "here",
  "alright",
]);
/** Where a main clause usually ends: a comma, or a subordinate clause or second clause begins. */
const CLAUSE_END = new Set(["SCONJ", "CCONJ", "PUNCT"]);

const usable = (s: Sentence) => {
  const f = facts(s);
  return !f.show && !f.a.tokens.some((t) => URLISH.test(t.value) || t.normal === "dot" || t.normal === "code");
};

const words = (toks: Token[]) => toks.filter((t) => t.pos !== "PUNCT" && t.pos !== "SYM");
/** Joins tokens as written: contractions ("is" + "n't") stay attached. */
const join = (toks: Token[]) =>
  toks.map((t, i) => (i && /^('|n't)/i.test(t.value) ? "" : i ? " " : "") + t.value).join("");
/** Capitalised, with a lone "i" (unpunctuated transcripts) as "I". */
const cap = (s: string) =>
  s.replace(/^\p{L}/u, (c) => c.toUpperCase()).replace(/\bi\b(?!')|\bi(?='(m|ve|ll|d)\b)/g, "I");
const count = (s: string) => s.split(/\s+/).filter((x) => x && !/^('|n't)/.test(x)).length;

/** The main clause of a claim, lead-in words dropped, cut where a second clause starts. */
function mainClause(f: Facts): string | undefined {
  let toks = f.a.tokens;
  let i = 0;
  while (i < toks.length && (LEAD.has(toks[i]!.normal) || toks[i]!.pos === "INTJ" || toks[i]!.pos === "PUNCT")) i++;
  toks = toks.slice(i);
  // A clause opening on a pronoun that points back ("It's about…") means nothing out of context,
  // and one opening on a subordinate clause ("When the boat…") is not the main one; an adverb
  // may open it only as its subject's modifier ("Most bad sourdough…").
  if (
    !toks.length ||
    ["it", "that", "this", "they", "he", "she", "there"].includes(toks[0]!.normal) ||
    ["SCONJ", "ADP"].includes(toks[0]!.pos) ||
    (toks[0]!.pos === "ADV" &&
      (!["ADJ", "NOUN"].includes(toks[1]?.pos ?? "") ||
        ["when", "where", "why", "how", "while"].includes(toks[0]!.normal)))
  )
    return undefined;
  const out: Token[] = [];
  let verb = false;
  let cut = false;
  for (const t of toks) {
    if (verb && CLAUSE_END.has(t.pos) && out.length >= MIN_WORDS) break;
    if (t.pos === "PUNCT" && out.length && t.value !== "'") break;
    out.push(t);
    if (t.pos === "VERB" || t.pos === "AUX") verb = true;
    if (words(out).length >= MAX_WORDS) {
      cut = true;
      break;
    }
  }
  // Cut short by the length cap: end on the last noun, where a phrase is whole ("on my balcony").
  if (cut) {
    const lastNoun = out.map((t) => t.pos === "NOUN" || t.pos === "PROPN").lastIndexOf(true);
    if (lastNoun >= MIN_WORDS - 1) out.length = lastNoun + 1;
  }
  // Trailing function words ("the recipe at all" → "the recipe") read as a cut-off.
  while (
    out.length &&
    ["ADP", "DET", "CCONJ", "SCONJ", "PART", "AUX", "PRON", "ADV"].includes(out[out.length - 1]!.pos) &&
    !/n't/.test(out[out.length - 1]!.value)
  )
    out.pop();
  // A subject and its verb must both survive the cuts ("Why the next session" says nothing).
  // The main verb: not one inside a relative clause ("colonies that die…", "the patient who is…").
  const v = out.findIndex(
    (t, i) =>
      (t.pos === "VERB" || t.pos === "AUX") &&
      !out.slice(0, i).some((x) => ["that", "who", "which"].includes(x.normal)),
  );
  if (v < 1 || v === out.length - 1 || !out.some((t) => t.pos === "NOUN" || t.pos === "PROPN")) return undefined;
  const text = join(out);
  return count(text) >= MIN_WORDS ? text : undefined;
}

export function titleFor(w: Window, keyTerms: string[]): string {
  // A title shows what was said: one with a word the engine barely heard may say what nobody said.
  const sure = (text: string) => !unsureWords(text, w.words).length;
  const ss = w.sentences.filter(usable);
  const first = w.sentences[0]!; // a window holds at least one sentence
  const opening = facts(first);
  if (
    opening.question &&
    usable(first) &&
    count(first.text) >= MIN_WORDS &&
    count(first.text) <= MAX_WORDS + 1 &&
    sure(first.text)
  )
    return cap(first.text.trim());
  // The strongest claim among the passage's statements, preferring its key terms.
  const key = new Set(keyTerms.slice(0, 4));
  const ranked = ss
    .map((s, i) => ({ s, f: facts(s), i }))
    .filter((x) => x.f.claim || x.f.advice)
    .map((x) => ({
      ...x,
      v:
        (x.f.superlative || x.f.sweeping ? 2 : 0) +
        (x.f.numbers ? 1 : 0) +
        (x.f.contrast ? 1 : 0) +
        Math.min(2, contentStems(x.s.text).filter((t) => key.has(t)).length) -
        x.i * 0.3,
    }))
    .sort((a, b) => b.v - a.v);
  for (const { f } of ranked) {
    const clause = mainClause(f);
    if (!clause || !sure(clause)) continue;
    // A general claim reads as the reason a clip exists: "Why most bad sourdough isn't about the recipe".
    // Only when the clause opens on its subject as a noun phrase or "we"/"you" ("Why I…" reads oddly).
    const subject = f.a.tokens.find((t) => t.value === clause.split(" ")[0]);
    const general =
      (f.sweeping || f.superlative || f.a.negated || f.contrast) &&
      !f.advice &&
      count(clause) < MAX_WORDS &&
      !!subject &&
      (["DET", "ADJ", "NOUN", "NUM"].includes(subject.pos) || ["we", "you"].includes(subject.normal));
    return cap(
      general
        ? `Why ${subject!.pos === "PROPN" ? clause : clause.replace(/^\p{Lu}/u, (c) => c.toLowerCase())}`
        : clause,
    );
  }
  // The two key noun phrases of the passage ("Sourdough starter and bread flour").
  const phrases = ss
    .flatMap((s) => facts(s).a.nounPhrases)
    .filter((p) => !URLISH.test(p) && contentStems(p).some((t) => key.has(t)) && sure(p));
  const distinct = [...new Map(phrases.map((p) => [contentStems(p).join(" "), p])).values()].sort(
    (a, b) => count(b) - count(a),
  );
  if (distinct.length >= 2 && count(`${distinct[0]} and ${distinct[1]}`) <= MAX_WORDS)
    return cap(`${distinct[0]} and ${distinct[1]}`);
  if (distinct[0] && count(distinct[0]) >= MIN_WORDS) return cap(distinct[0]);
  // The opening sentence (the first heard surely, and more than a word: "Strangely." says nothing),
  // cut to eight words.
  const heard = (s: (typeof ss)[number]) =>
    sure(
      s.words
        .slice(0, MAX_WORDS)
        .map((x) => x.text)
        .join(" "),
    );
  const base = (ss.find((s) => heard(s) && count(s.text) >= MIN_WORDS) ?? ss.find(heard) ?? ss[0] ?? first).text
    .trim()
    .split(/\s+/)
    .filter((x) => !URLISH.test(x));
  const cut = base
    .slice(0, MAX_WORDS)
    .join(" ")
    .replace(/[,;:.!?]+$/, "");
  return cap(base.length > MAX_WORDS ? `${cut}…` : cut);
}
