/**
 * Search mode: how well each candidate window answers a brief (`about`), blended with the
 * window's quality so that a relevant but weak passage does not beat a relevant strong one.
 */
import { contentStems, type Window } from "./score.js";

/**
 * BM25 of each window against the brief, the candidate windows being the documents: term
 * frequencies, lengths and document frequencies are all counted over windows.
 */
export function bm25(windows: Array<Pick<Window, "words">>, about: string): number[] {
  const query = [...new Set(contentStems(about))];
  if (!query.length || !windows.length) return windows.map(() => 0);
  const k1 = 1.2;
  const b = 0.75;
  const tfs = windows.map((w) => {
    const tf = new Map<string, number>();
    for (const t of contentStems(w.words.map((x) => x.text).join(" "))) tf.set(t, (tf.get(t) ?? 0) + 1);
    return tf;
  });
  const lens = windows.map((w) => w.words.length);
  const avg = lens.reduce((a, c) => a + c, 0) / lens.length;
  const n = windows.length;
  const idf = new Map(query.map((q) => {
    const df = tfs.filter((tf) => tf.has(q)).length;
    return [q, Math.log(1 + (n - df + 0.5) / (df + 0.5))] as const;
  }));
  return tfs.map((tf, i) => {
    let s = 0;
    for (const q of query) {
      const f = tf.get(q) ?? 0;
      if (f) s += idf.get(q)! * ((f * (k1 + 1)) / (f + k1 * (1 - b + (b * lens[i]!) / Math.max(1, avg))));
    }
    return s;
  });
}

export interface BriefScore {
  value: number;
  /** "matches the brief: …", when the window shares a term with the brief. */
  reason?: string;
  relevant: boolean;
}

/** Scores windows against a brief: call the result with a window's index and its quality (0–1). */
export function briefScorer(windows: Array<Pick<Window, "words">>, about: string): (i: number, quality: number) => BriefScore {
  const rel = bm25(windows, about);
  const maxRel = Math.max(0, ...rel);
  const q = new Set(contentStems(about));
  return (i, quality) => {
    const r = maxRel > 0 ? rel[i]! / maxRel : 0; // rel has one score per window
    const value = 0.55 * r + 0.45 * quality;
    if (r <= 0) return { value, relevant: false };
    const hits = [...new Set(windows[i]!.words.flatMap((x) => contentStems(x.text)).filter((t) => q.has(t)))];
    return { value, reason: `matches the brief: ${hits.slice(0, 4).join(", ")}`, relevant: true };
  };
}
