/**
 * The corpus's own scoring rules (shared/corpus/find-clips/score.py), in TypeScript so the bench and
 * the fit can judge thousands of spans without a process per episode. The rules, at the top 5:
 * - a clip **hits** a highlight when their IoU is at least 0.5, or when it covers at least 70 % of the
 *   highlight while being at most 1.6 times its length;
 * - **hit rate**: highlights some top clip hits; **precision**: top clips that hit one, over the clips
 *   returned (at most 5); **decoys**: top clips with IoU of at least 0.5 with a decoy;
 * - **boundaries**: top clips that start and end on a sentence boundary within 0.3 s (a sentence ends
 *   at . ? ! or, unpunctuated, at the labelled true ends; at a change of speaker; at the last word);
 * - **brief**: briefs whose first answer hits the highlight the brief names.
 * test/unit/find-clips-judge.test.ts runs score.py itself on the same spans and compares.
 */
import { prng, randomClips } from "./_find-clips-measure.js";

export interface Span {
  start: number;
  end: number;
}
export interface JudgedWord {
  text: string;
  start: number;
  end: number;
  speaker?: string | null;
}
/** One episode as the judge needs it: the words, the labels, and the true sentence ends if unpunctuated. */
export interface Judged {
  words: JudgedWord[];
  highlights: Span[];
  decoys: Span[];
  briefs: Array<{ about: string; highlight: number }>;
  /** Word indexes that end a sentence (an unpunctuated episode's labels); else punctuation decides. */
  sentenceEnds?: number[];
}

export const TOP = 5;
const TOL = 0.3;
const SENT_END = /[.?!]["')\]]*$/;

export const overlap = (a: Span, b: Span) => Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
export function iou(a: Span, b: Span): number {
  const inter = overlap(a, b);
  const union = a.end - a.start + (b.end - b.start) - inter;
  return union > 0 ? inter / union : 0;
}
export function hits(clip: Span, hl: Span): boolean {
  const len = clip.end - clip.start;
  const hlen = hl.end - hl.start;
  if (len <= 0 || hlen <= 0) return false;
  if (iou(clip, hl) >= 0.5) return true;
  return overlap(clip, hl) >= 0.7 * hlen && len <= 1.6 * hlen;
}

/** The windows a clip's start and end must fall in, per score.py's Boundaries. */
export function boundaryWindows(t: Pick<Judged, "words" | "sentenceEnds">): { starts: Span[]; ends: Span[] } {
  const ends = new Set(t.sentenceEnds ?? []);
  const starts: Span[] = [];
  const endW: Span[] = [];
  const n = t.words.length;
  t.words.forEach((w, i) => {
    const last = i === n - 1;
    const said = t.sentenceEnds ? ends.has(i) : SENT_END.test(w.text);
    const next = t.words[i + 1];
    if (!(last || said || (next?.speaker ?? null) !== (w.speaker ?? null))) return;
    endW.push({ start: w.end - TOL, end: last ? Infinity : next!.start + TOL });
    if (!last) starts.push({ start: w.end - TOL, end: next!.start + TOL });
  });
  if (n) starts.push({ start: -Infinity, end: t.words[0]!.start + TOL });
  return { starts, ends: endW };
}
const inside = (v: number, ws: Span[]) => ws.some((w) => w.start <= v && v <= w.end);

export interface Measured {
  hit: number;
  precision: number;
  decoys: number;
  boundaries: number;
  /** Null when the episode has no briefs. */
  brief: number | null;
}

/** The measures of one episode: its ranked clips, and each brief's answer (or none). */
export function judge(t: Judged, clips: Span[], answers: Array<Span | undefined> = []): Measured {
  const top = clips.slice(0, TOP);
  const b = boundaryWindows(t);
  const n = top.length;
  const frac = (x: number, d: number) => (d ? x / d : 0);
  const hitHl = t.highlights.filter((h) => top.some((c) => hits(c, h))).length;
  const good = top.filter((c) => t.highlights.some((h) => hits(c, h))).length;
  const decoy = top.filter((c) => t.decoys.some((d) => iou(c, d) >= 0.5)).length;
  const bound = top.filter((c) => c.end > c.start && inside(c.start, b.starts) && inside(c.end, b.ends)).length;
  const brief = t.briefs.length
    ? t.briefs.filter(
        (q, i) => answers[i] && t.highlights[q.highlight] && hits(answers[i]!, t.highlights[q.highlight]!),
      ).length / t.briefs.length
    : null;
  return {
    hit: frac(hitHl, t.highlights.length),
    precision: frac(good, n),
    decoys: frac(decoy, n),
    boundaries: frac(bound, n),
    brief,
  };
}

/** Chance: random spans with the engine's own count and lengths, averaged over `draws` seeded draws. */
export function chanceOf(t: Judged, lengths: number[], briefLengths: number[], draws = 200): Measured {
  const duration = t.words.at(-1)?.end ?? 0;
  const rand = prng(t.words.length * 7919 + draws);
  const rows: Measured[] = [];
  for (let d = 0; d < draws; d++) {
    const answers = briefLengths.map((l) => randomClips([l], duration, rand)[0]);
    rows.push(judge(t, randomClips(lengths, duration, rand), answers));
  }
  return mean(rows);
}

/** The mean of each measure over the rows that have it. */
export function mean(rows: Measured[]): Measured {
  const avg = (k: keyof Measured) => {
    const v = rows.map((r) => r[k]).filter((x): x is number => x !== null);
    return v.length ? v.reduce((a, c) => a + c, 0) / v.length : null;
  };
  return {
    hit: avg("hit") ?? 0,
    precision: avg("precision") ?? 0,
    decoys: avg("decoys") ?? 0,
    boundaries: avg("boundaries") ?? 0,
    brief: avg("brief"),
  };
}
