/**
 * A brief matched to sentences by meaning as well as by words. Each content word of the brief is a
 * "soft term": a sentence word counts for it fully when it has the same stem, and partly when its
 * word vector is among its nearest in the episode (nearestInEpisode), so "pardoning" finds "forgive" and
 * "eatery" finds "restaurant". The counts then feed BM25 in brief.ts as term frequencies do.
 *
 * Generic words ("show", "start", "plan", "people", "thing") are in most passages of any episode,
 * so a brief's generic word earns no credit at all, lexical or semantic: they are listed below, and
 * any other word frequent in English weighs less (the vector file lists words most frequent first).
 */
import stem from "wink-porter2-stemmer";
import { eng } from "stopword";
import { tokens } from "./text.js";
import { baseForms, relatedWords } from "./thesaurus.js";
import { dot, wordVectors } from "./vectors.js";

/**
 * Words a speaker says in any passage, whatever its topic: without them a brief such as "the story
 * of how they made the price" searches for "price" rather than for talk.
 */
const CONVERSATIONAL =
  "yeah yes okay ok oh um uh erm hmm like just really gonna wanna gotta got get gets getting know think thought " +
  "mean see saw say said says tell told talk talking thing things stuff story lot lots kind sort actually basically " +
  "literally maybe pretty guess make made way much many well right sure something anything everything " +
  "why how what when where who not put let people come came take want need happen happens";
/**
 * Generic words: what shows, episodes and lives are made of rather than a topic. A passage that
 * shares only these with a brief is no answer to it (the show's intro shares "show" and "today").
 * Maintained by hand; add a word when a brief lands on small talk through it.
 */
const GENERIC =
  "show shows episode episodes guest guests host hosts today tonight start started starting begin beginning " +
  "plan plans planned person thing time times day days week weeks year years month months life lives work " +
  "works worked working job good great bad big small little new old first last next one two three part bit " +
  "place places question questions answer answers problem problems idea ideas point points case cases fact " +
  "happened happening turns turned turn end ended ending matter matters course side whole number long short " +
  "try tried trying keep kept give gave given look looked looking find found feel felt call called " +
  "use used using help helped every ever never always also still even back around lots able different " +
  "real really important interesting listener listeners everyone someone anyone folks welcome thanks";

/** Function words the stopword package's short English list leaves in ("whose", "without", "rather"). */
const FUNCTION =
  "whose whom whoever whatever whichever whereas whether while without within upon onto toward towards " +
  "across along among amongst behind beside besides beyond despite during except inside outside since " +
  "though although unless until via per than rather quite less least often sometimes usually almost " +
  "already perhaps instead either neither nor yet thus hence therefore however otherwise anyway " +
  "she her hers herself him himself his they them their theirs themselves it its itself we us our ours " +
  "you your yours yourself i me my mine myself one ones another each other others such same own " +
  "can could may might must shall should will would ought does did done doing has had having " +
  "been being become becomes became seem seems seemed lets let's i'm it's that's there's here's";
const STOP = new Set([...eng, ...CONVERSATIONAL.split(" "), ...FUNCTION.split(" ")]);
const GENERIC_SET = new Set(GENERIC.split(" "));
const STOP_STEMS = new Set([...CONVERSATIONAL.split(" "), ...GENERIC.split(" ")].map((w) => stem(w)));

/**
 * Below this cosine two words are not near in meaning. The shipped vectors have their common
 * directions taken out (scripts/build-word-vectors.mjs), which puts unrelated words near 0.1 ("show"
 * and "sleep" 0.14) and near ones at 0.5–0.85 ("bread" and "sourdough" 0.58, "eatery" and
 * "restaurant" 0.84).
 */
export const NEAR = 0.3;
/**
 * What an episode word related to a brief word in the thesaurus (thesaurus.ts: a synonym, a more
 * general word, a derived form) counts for it. Measured on the tuning half of the labelled set:
 * 0.6–0.8 alike (briefs 40 of 51 against 37 without, with frequent brief words left unexpanded).
 */
export const RELATED = 0.7;
/** How many of the episode's words may count for one brief word. */
export const NEIGHBOURS = 5;
/** Episode words this frequent in English (by rank) are matched by their own stem only. */
const COMMON = 1000;

export interface Term {
  /** The word as said, lower case, for its vector. */
  word: string;
  stem: string;
}

/** The content words of a text, in order: stop words, conversational and generic words out. */
export function contentTerms(text: string): Term[] {
  return tokens(text)
    .map((t) => t.replace(/'s$/, ""))
    .filter((t) => t.length > 2 && !STOP.has(t) && !GENERIC_SET.has(t) && !/\d/.test(t))
    .map((t) => ({ word: t, stem: stem(t) }))
    .filter((t) => !STOP_STEMS.has(t.stem));
}

export const isGeneric = (word: string) => GENERIC_SET.has(word) || STOP_STEMS.has(stem(word));

/**
 * A word's vector, or its base form's when the word itself is not among the kept words
 * ("grazers" → "grazer", "devours" → "devour", "quietened" → "quieten").
 */
export function vectorOf(word: string): Float32Array | undefined {
  const vectors = wordVectors();
  if (!vectors) return undefined;
  const direct = vectors.get(word);
  if (direct) return direct;
  for (const b of baseForms(word)) {
    const v = vectors.get(b);
    if (v) return v;
  }
  return undefined;
}

/** A brief word, with its vector and how rare it is in English. */
export interface BriefTerm extends Term {
  vec?: Float32Array;
  rarity: number;
}

/**
 * A brief word's near words among the episode's own (query expansion restricted to the episode):
 * its NEIGHBOURS closest words by cosine above NEAR, each counting for it by how close it is,
 * squashed so that "eatery" and "restaurant" (0.84) count about 0.6 and a loose likeness next to
 * nothing. Taking the nearest few rather than all above a bar lets a brief in other words than the
 * episode's find the episode's own words for it, without every loosely related word counting.
 */
export function nearestInEpisode(q: BriefTerm, vecs: Map<string, Float32Array | undefined>): Map<string, number> {
  const out = new Map<string, number>();
  if (!q.vec) return out;
  const close: Array<[string, number]> = [];
  for (const [word, v] of vecs) {
    if (!v) continue;
    const c = dot(q.vec, v);
    if (c > NEAR) close.push([word, c]);
  }
  close.sort((a, b) => b[1] - a[1]);
  for (const [word, c] of close.slice(0, NEIGHBOURS)) out.set(word, ((c - NEAR) / (1 - NEAR)) ** 1.5);
  return out;
}

/** How rare a word is in English, 0.3 (the most common) to 1 (outside the 70,000 kept words). */
export function rarity(word: string): number {
  const rank = wordVectors()?.rank(word);
  if (rank === undefined) return 1;
  return 0.3 + 0.7 * Math.min(1, Math.log(rank + 50) / Math.log(70_000));
}

export interface SoftCounts {
  /** The brief's distinct content words, each with its vector (when known) and English rarity. */
  brief: BriefTerm[];
  /** For each sentence, for each brief word, its soft count (sum of likeness over the sentence's words). */
  counts: number[][];
  /** For each sentence, its content words' count. */
  lengths: number[];
}

/** Soft counts of the brief's words in each sentence; sentences in `skip` count nothing. */
export function softCounts(about: string, sentences: string[], skip: (i: number) => boolean = () => false): SoftCounts {
  const terms = sentences.map(contentTerms);
  const vecs = new Map<string, Float32Array | undefined>();
  // The thousand most frequent English words ("once", "start", "set") are near too many others
  // to count for a brief word by meaning; they count only when they are the brief's own word.
  const common = (w: string) => (wordVectors()?.rank(w) ?? Number.POSITIVE_INFINITY) < COMMON;
  for (const t of terms.flat()) if (!vecs.has(t.word)) vecs.set(t.word, common(t.word) ? undefined : vectorOf(t.word));
  const seen = new Set<string>();
  const brief = contentTerms(about)
    .filter((t) => !seen.has(t.stem) && seen.add(t.stem))
    .map((t): BriefTerm => ({ ...t, vec: vectorOf(t.word), rarity: rarity(t.word) }));
  const near = brief.map((q) => nearestInEpisode(q, vecs));
  // A brief word among the most frequent in English ("stage", "set") has too many senses for the
  // thesaurus to say which is meant ("stage" → "set", "place", "point"): it counts only as itself.
  const related = brief.map((q) =>
    common(q.word) ? new Set<string>() : new Set([...relatedWords(q.word)].map((w) => stem(w))),
  );
  const like = (q: BriefTerm, k: number, t: Term) =>
    q.stem === t.stem
      ? 1
      : Math.max(near[k]!.get(t.word) ?? 0, related[k]!.has(t.stem) && !STOP_STEMS.has(t.stem) ? RELATED : 0);
  const counts = terms.map((ts, i) => {
    const row = brief.map(() => 0);
    if (!skip(i)) for (const t of ts) brief.forEach((q, k) => (row[k]! += like(q, k, t)));
    return row;
  });
  return { brief, counts, lengths: terms.map((ts) => ts.length) };
}

export const cosine = (a: Float32Array, b: Float32Array) => {
  const n = Math.sqrt(dot(a, a) * dot(b, b));
  return n > 0 ? dot(a, b) / n : 0;
};
