/**
 * Topic segmentation by lexical cohesion, after Hearst's TextTiling: the stemmed content words of
 * the few sentences before each gap are compared with those after it (cosine similarity); where
 * the similarity dips deeper than its neighbours' peaks (the gap's depth score), the talk changed
 * topic. Sentences are the units, so every boundary is also a sentence boundary. Passages that
 * start on a boundary and do not cross one are self-contained; a passage that runs past a boundary
 * into the next topic's first line is not.
 */
import { contentStems } from "./nlp.js";

/** Sentences on each side of a gap that are compared. */
const BLOCK = 3;

export interface Topics {
  /** depth[i]: depth score of the gap before sentence i, 0..1 of the episode's deepest (1 for i = 0). */
  depth: number[];
  /** boundary[i]: a topic starts at sentence i (always true for i = 0). */
  boundary: boolean[];
}

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [t, v] of a) {
    na += v * v;
    dot += v * (b.get(t) ?? 0);
  }
  for (const v of b.values()) nb += v * v;
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

function bag(stems: string[][], from: number, to: number): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = Math.max(0, from); i < Math.min(stems.length, to); i++)
    for (const t of stems[i]!) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

/**
 * Rhetorical cues around a gap, for talks where no question marks the topics: `signpost[i]`, the
 * speaker announces a move before sentence i ("Now, I want to talk about…", "Let me tell you
 * about…"); `joined[i]`, sentence i carries on the one before by the same speaker ("So…", "And…",
 * "Because…"), so no topic starts there however the words change.
 */
export interface Rhetoric {
  signpost?: boolean[];
  joined?: boolean[];
}

/**
 * Segments sentences (their texts) into topics. `turns[i]` marks a speaker change before sentence
 * i: a gap where the speaker changes and the words change is a likelier boundary than either alone.
 */
export function segmentTopics(texts: string[], turns: boolean[] = [], rhetoric: Rhetoric = {}): Topics {
  const n = texts.length;
  if (n === 0) return { depth: [], boundary: [] };
  const stems = texts.map(contentStems);
  // Similarity of the gap before sentence g (g = 1..n-1).
  const sim: number[] = [1];
  for (let g = 1; g < n; g++) sim.push(cosine(bag(stems, g - BLOCK, g), bag(stems, g, g + BLOCK)));
  const raw: number[] = [0];
  for (let g = 1; g < n; g++) {
    // Climb to the nearest peak on each side; the depth is how far the gap sits below both.
    let l = sim[g]!;
    for (let k = g - 1; k >= 1 && sim[k]! >= l; k--) l = sim[k]!;
    let r = sim[g]!;
    for (let k = g + 1; k < n && sim[k]! >= r; k++) r = sim[k]!;
    const cue = (turns[g] ? 0.1 : 0) + (rhetoric.signpost?.[g] ? 0.15 : 0);
    raw.push(rhetoric.joined?.[g] ? 0 : l - sim[g]! + (r - sim[g]!) + cue);
  }
  const inner = raw.slice(1);
  const mean = inner.reduce((a, b) => a + b, 0) / Math.max(1, inner.length);
  const sd = Math.sqrt(inner.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, inner.length));
  const max = Math.max(1e-9, ...inner);
  // Hearst's cut-off: deeper than the mean by half a standard deviation; and a local maximum, so a
  // wide valley gives one boundary rather than several neighbouring ones.
  const boundary = raw.map(
    // On a plateau (a run of gaps with one depth, where no words are shared) only its first gap.
    (d, g) => g === 0 || (d > mean + sd / 2 && d > (raw[g - 1] ?? 0) && d >= (raw[g + 1] ?? 0)),
  );
  return { depth: raw.map((d, g) => (g === 0 ? 1 : d / max)), boundary };
}
