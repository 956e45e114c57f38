/**
 * Search mode: how well each candidate window answers a brief (`about`), blended with the
 * window's quality so that a relevant but weak passage does not beat a relevant strong one, and
 * how the answers meet the clips already on the list.
 *
 * Terms are content words: the maintained English stop-word list (stopword) plus a short list of
 * conversational words that carry no topic, then stemmed with Porter2, so "pricing" meets "prices"
 * and "make", "way", "see", "much" or "story" in a brief no longer pull in small talk.
 */
import stem from "wink-porter2-stemmer";
import { eng } from "stopword";
import type { Clip } from "./clip.js";
import { tokens } from "./text.js";

/**
 * Words a speaker says in any passage, whatever its topic: without them a brief such as "the story
 * of how they made the price" searches for "price" rather than for talk.
 */
const CONVERSATIONAL = (
  "yeah yes okay ok oh um uh erm hmm like just really gonna wanna gotta got get gets getting know think thought " +
  "mean see saw say said says tell told talk talking thing things stuff story lot lots kind sort actually basically " +
  "literally maybe pretty guess make made way much many well right sure something anything everything " +
  "why how what when where who not put let people come came take want need happen happens"
).split(" ");
const STOP = new Set([...eng, ...CONVERSATIONAL]);
/** The conversational words' stems too, so "happened" and "talks" go with "happen" and "talk". */
const STOP_STEMS = new Set(CONVERSATIONAL.map((w) => stem(w)));

/** The stemmed content words of a text, in order (repeats kept: they are term frequencies). */
export function briefTerms(text: string): string[] {
  return tokens(text)
    .map((t) => t.replace(/'s$/, ""))
    .filter((t) => t.length > 2 && !STOP.has(t) && !/^\d+$/.test(t))
    .map((t) => stem(t))
    .filter((t) => !STOP_STEMS.has(t));
}

interface HasWords {
  words: Array<{ text: string }>;
}
const _terms = new WeakMap<object, string[]>();
const termsOf = (w: HasWords) => {
  let v = _terms.get(w);
  if (!v) _terms.set(w, (v = briefTerms(w.words.map((x) => x.text).join(" "))));
  return v;
};

/**
 * BM25 of each window against the brief, the candidate windows being the documents: term
 * frequencies, lengths and document frequencies are all counted over windows.
 */
export function bm25(windows: HasWords[], about: string): number[] {
  const query = [...new Set(briefTerms(about))];
  if (!query.length || !windows.length) return windows.map(() => 0);
  const k1 = 1.2;
  const b = 0.75;
  const tfs = windows.map((w) => {
    const tf = new Map<string, number>();
    for (const t of termsOf(w)) tf.set(t, (tf.get(t) ?? 0) + 1);
    return tf;
  });
  const lens = windows.map((w) => w.words.length);
  const avg = lens.reduce((a, c) => a + c, 0) / lens.length;
  const n = windows.length;
  const idf = new Map(
    query.map((q) => {
      const df = tfs.filter((tf) => tf.has(q)).length;
      return [q, Math.log(1 + (n - df + 0.5) / (df + 0.5))] as const;
    }),
  );
  return tfs.map((tf, i) => {
    let s = 0;
    for (const q of query) {
      const f = tf.get(q) ?? 0;
      if (f) s += idf.get(q)! * ((f * (k1 + 1)) / (f + k1 * (1 - b + (b * lens[i]!) / Math.max(1, avg))));
    }
    return s;
  });
}

interface BriefWindow extends HasWords {
  sentences: Array<HasWords & { start: number; end: number }>;
  start: number;
  end: number;
}

/**
 * The share of a window's time spent outside the passage where the brief's terms are: sentences
 * before the first and after the last one that holds a term. An answer should be as long as the
 * matching passage, not padded out to the longest clip allowed.
 */
export function edgeWaste(w: BriefWindow, query: Set<string>): number {
  const hit = w.sentences.map((s) => termsOf(s).some((t) => query.has(t)));
  const first = hit.indexOf(true);
  if (first < 0) return 1;
  const last = hit.lastIndexOf(true);
  const span = w.sentences[last]!.end - w.sentences[first]!.start; // first <= last < length
  const len = Math.max(0.001, w.end - w.start);
  // A fifth of the window goes free: a passage's set-up or its conclusion rarely repeats the terms.
  return Math.max(0, 1 - span / len - 0.2);
}

export interface BriefScore {
  value: number;
  /** "matches the brief: …", when the window shares a term with the brief. */
  reason?: string;
  relevant: boolean;
}

/**
 * Scores windows against a brief: call the result with a window's index and its overall quality
 * (0–1). Relevance is BM25 scaled to the best window, lowered by the time spent outside the
 * matching passage, then weighed by quality so that a relevant but weak passage does not beat a
 * relevant strong one.
 */
export function briefScorer(windows: BriefWindow[], about: string): (i: number, quality: number) => BriefScore {
  const rel = bm25(windows, about);
  const maxRel = Math.max(0, ...rel);
  const q = new Set(briefTerms(about));
  return (i, quality) => {
    const r = maxRel > 0 ? rel[i]! / maxRel : 0; // rel has one score per window
    if (r <= 0) return { value: 0.45 * quality, relevant: false };
    const w = windows[i]!;
    // Multiplied, not added: among passages that match about as well, the better clip wins, and a
    // rambling decoy that repeats the brief's words does not outrank the moment on words alone.
    const value = r * (1 - 0.5 * edgeWaste(w, q)) * (0.35 + 0.65 * quality);
    const hits = [...new Set(termsOf(w).filter((t) => q.has(t)))];
    return { value, reason: `matches the brief: ${hits.slice(0, 4).join(", ")}`, relevant: true };
  };
}

export type { Answer } from "./clip.js";

/** The clip marked as an answer to a brief, keeping every earlier answer of other briefs. */
export const withAnswer = <C extends Pick<Clip, "answers">>(c: C, about: string, rank: number): C => ({
  ...c,
  answers: [...(c.answers ?? []).filter((a) => a.about !== about), { about, rank }],
});

/** The clips answering a brief, best first (an answer found before, or a clip found by that brief). */
export function answersTo<C extends Pick<Clip, "answers" | "about">>(clips: C[], about: string): C[] {
  const rank = (c: C) => c.answers?.find((a) => a.about === about)?.rank ?? (c.about === about ? 1000 : -1);
  return clips.filter((c) => rank(c) >= 0).sort((a, b) => rank(a) - rank(b));
}

const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));

/**
 * Picks a brief's answers in rank order. A candidate that lies mostly inside a clip already on the
 * list (or holds most of it) is answered by that clip, which keeps its number and ref; one that
 * only grazes a listed clip or an earlier answer is skipped. `count` limits the new clips only.
 */
export function pickAnswers<T extends { w: { start: number; end: number } }>(
  ranked: T[],
  existing: Clip[],
  count: number,
): Array<{ pick: T; existing?: Clip }> {
  const out: Array<{ pick: T; existing?: Clip }> = [];
  const usable = existing.filter((c) => Number.isFinite(c?.start) && Number.isFinite(c?.end));
  let fresh = 0;
  for (const c of ranked) {
    if (fresh >= count) break;
    const len = Math.max(0.001, c.w.end - c.w.start);
    const same = usable.find((e) => overlap(e, c.w) >= 0.5 * Math.min(len, e.end - e.start));
    if (same) {
      if (!out.some((o) => o.existing === same)) out.push({ pick: c, existing: same });
      continue;
    }
    if ([...usable, ...out.map((o) => o.existing ?? o.pick.w)].some((b) => overlap(b, c.w) > 0)) continue;
    out.push({ pick: c });
    fresh++;
  }
  return out;
}
