/**
 * Related words for matching a brief to passages: a brief says "pardoning", the speaker
 * "forgiveness"; a brief says "bequest", the speaker "legacy"; a brief says "devours", the speaker
 * "eats". Word vectors (vectors.ts) find words used alike; a thesaurus finds words that mean alike
 * or name the more general thing, which vectors often rank below looser neighbours. The file
 * (words/thesaurus.txt, about 5 MB) is built from WordNet by scripts/build-thesaurus.mjs and read
 * once, on the first search that needs it.
 */
import { readFileSync } from "node:fs";
import { wordsFile } from "./vectors.js";

/**
 * Parses the file format written by scripts/build-thesaurus.mjs: a line per word, its related words
 * kept as one space-separated string and split only for the brief's own words (a list per word
 * cost about 40 MB of heap for 68,000 words).
 */
export function parseThesaurus(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const tab = line.indexOf("\t");
    // "#" lines are WordNet's licence notice, which travels with the file.
    if (tab > 0 && !line.startsWith("#")) out.set(line.slice(0, tab), line.slice(tab + 1));
  }
  return out;
}

let _loaded: Map<string, string> | null | undefined;

/** The shipped thesaurus, read on first use; null when the file is missing (then vectors alone). */
export function thesaurus(): Map<string, string> | null {
  if (_loaded === undefined) {
    const file = wordsFile("thesaurus.txt");
    _loaded = file ? parseThesaurus(readFileSync(file, "utf8")) : null;
  }
  return _loaded;
}

/** A word's possible base forms, for lookups that miss the word itself ("grazers" → "grazer", "eats" → "eat"). */
export function baseForms(word: string): string[] {
  const bases = [/s$/, /es$/, /ed$/, /d$/, /ing$/, /ly$/, /ers?$/].map((re) => word.replace(re, ""));
  return [...bases, ...bases.map((b) => `${b}e`)].filter((b) => b.length > 2 && b !== word);
}

/** The words related to a word and to each of its possible base forms ("pardoning" → "pardon" → "forgive"). */
export function relatedWords(word: string): Set<string> {
  const out = new Set<string>();
  const t = thesaurus();
  if (!t) return out;
  for (const w of [word, ...baseForms(word)]) for (const r of t.get(w)?.split(" ") ?? []) out.add(r);
  return out;
}
