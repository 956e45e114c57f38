/**
 * Keyword emphasis for burned captions: numbers and the passage's key phrases are drawn in the
 * accent colour, and with `emoji` a symbol from config/emoji.yaml may follow a key phrase.
 *
 * A key phrase here is one of the clip's few key terms: content words (not stop words, four letters
 * or more) that are in the clip's title (find-clips made it from the passage's strongest claim or
 * key noun phrases) or that the passage says at least twice. The best three by title and count are
 * kept, so a clip's colour goes to what it is about rather than to every long word.
 */
import { readFileSync } from "node:fs";
import { eng } from "stopword";
import { parse } from "yaml";
import { findConfigFile } from "./styles.js";
import type { CaptionWord } from "./captions.js";

const STOP = new Set(eng.map((w: string) => w.toLowerCase()));
// Talk words that are long and frequent in any conversation and so never what a clip is about.
const CHAT = new Set([
  "really",
  "actually",
  "basically",
  "literally",
  "something",
  "anything",
  "everything",
  "nothing",
  "thing",
  "things",
  "going",
  "gonna",
  "think",
  "know",
  "like",
  "just",
  "yeah",
  "right",
  "okay",
  "well",
  "mean",
  "kind",
  "sort",
  "want",
  "said",
  "says",
  "people",
  "little",
  "pretty",
  "stuff",
  "there",
  "where",
  "because",
]);
const NUMBER_WORDS = new Set([
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
  "thirteen",
  "fourteen",
  "fifteen",
  "sixteen",
  "seventeen",
  "eighteen",
  "nineteen",
  "twenty",
  "thirty",
  "forty",
  "fifty",
  "sixty",
  "seventy",
  "eighty",
  "ninety",
  "hundred",
  "thousand",
  "million",
  "millions",
  "billion",
  "billions",
  "trillion",
  "percent",
  "dozen",
  "dozens",
  "hundreds",
  "thousands",
]);
const MAX_KEYS = 3;
const MAX_EMOJI = 3;

/** The word's letters and digits, lower case ("$3.5M," → "35m"; "Dough's" → "doughs"). */
const core = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");
/** One form for "dough"/"doughs": a plural "s" is dropped from words of five letters or more. */
const term = (c: string) => (c.length >= 5 && c.endsWith("s") && !c.endsWith("ss") ? c.slice(0, -1) : c);

export const isNumberWord = (text: string) => /\d/.test(text) || NUMBER_WORDS.has(core(text));

const isContent = (c: string) => c.length >= 4 && /^\p{L}+$/u.test(c) && !STOP.has(c) && !CHAT.has(c);

/** The passage's key terms, best first (see the module comment). */
export function keyTerms(words: Array<{ text: string }>, title?: string): string[] {
  const inTitle = new Set((title ?? "").split(/\s+/).map(core).filter(isContent).map(term));
  const count = new Map<string, number>();
  for (const w of words) {
    const c = core(w.text);
    if (isContent(c)) count.set(term(c), (count.get(term(c)) ?? 0) + 1);
  }
  return [...count.entries()]
    .filter(([t, n]) => n >= 2 || inTitle.has(t))
    .map(([t, n]) => ({ t, score: n + (inTitle.has(t) ? 2 : 0) }))
    .sort((a, b) => b.score - a.score || b.t.length - a.t.length || a.t.localeCompare(b.t))
    .slice(0, MAX_KEYS)
    .map((x) => x.t);
}

/**
 * Words marked for emphasis (numbers and key terms) and, given an emoji map, the first time each
 * key term with an entry is said, its symbol put after the word (before trailing punctuation, so a
 * sentence still ends where it did). At most three symbols a clip.
 */
export function emphasize<T extends CaptionWord>(
  words: T[],
  o: { title?: string; emoji?: Map<string, string> | null },
): T[] {
  const keys = new Set(keyTerms(words, o.title));
  const used = new Set<string>();
  return words.map((w) => {
    // A word the editor marked (emphasis true or false) keeps its mark: the user's choice wins.
    if (typeof w.emphasis === "boolean") return w;
    const t = term(core(w.text));
    const key = keys.has(t);
    if (!key && !isNumberWord(w.text)) return w;
    const symbol =
      key && o.emoji && used.size < MAX_EMOJI && !used.has(t)
        ? (o.emoji.get(t) ?? o.emoji.get(core(w.text)))
        : undefined;
    if (!symbol) return { ...w, emphasis: true };
    used.add(t);
    const m = /^(.*?)([.,!?;:…"'”’)]*)$/su.exec(w.text)!;
    return { ...w, emphasis: true, text: `${m[1]} ${symbol}${m[2]}` };
  });
}

const cache = new Map<string, Map<string, string>>();

/** The keyword → symbol map (config/emoji.yaml, or render.emoji_file); read once, at most 1000 entries. */
export function loadEmojiMap(file?: string): Map<string, string> {
  const where = file || findConfigFile("emoji.yaml");
  const hit = cache.get(where);
  if (hit) return hit;
  const doc = parse(readFileSync(where, "utf8")) as Record<string, unknown> | null;
  if (!doc || typeof doc !== "object" || Array.isArray(doc))
    throw new Error(`${where}: expected a map of word: symbol`);
  const entries = Object.entries(doc);
  if (entries.length > 1000) throw new Error(`${where}: more than 1000 entries`);
  const map = new Map<string, string>();
  for (const [k, v] of entries) {
    if (typeof v !== "string" || !v.trim() || [...v.trim()].length > 4)
      throw new Error(`${where}: "${k}" must map to one symbol`);
    map.set(term(core(k)), v.trim());
  }
  cache.set(where, map);
  return map;
}
