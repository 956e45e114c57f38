/**
 * Scoring of one candidate window. Each signal is 0..1 and comes with a reason a person can read,
 * so the ranking can be judged from the output alone. Weights live in one table.
 */
import {
  BOLD_CLAIMS,
  CONNECTORS,
  FILLER_PAIRS,
  FILLERS,
  NUMBER_WORDS,
  PRONOUN_STARTS,
  QUESTION_STARTS,
  STOPWORDS,
  STORY_STARTS,
  STRONG_WORDS,
  isTerminal,
  stem,
  tokens,
  type Sentence,
  type Word,
} from "./text.js";

export const WEIGHTS = { hook: 0.25, complete: 0.2, focus: 0.2, energy: 0.15, clean: 0.1, length: 0.1 };

/** Episode-wide statistics the window scores are relative to. */
export interface EpisodeStats {
  /** Inverse document frequency of stemmed content tokens, sentences as documents. */
  idf: Map<string, number>;
  /** Median words per second of speech. */
  medianRate: number;
  /** Loudness (RMS dBFS) per second of the recording, when it could be measured. */
  loudness?: number[];
  loudnessMean?: number;
  punctuated: boolean;
  duration: number;
}

export interface Window {
  sentences: Sentence[];
  words: Word[];
  start: number;
  end: number;
  pieces: Array<{ start: number; end: number }>;
  duration: number;
  /** The next word after the window, if any (for the "finished thought" check). */
  nextWord?: Word;
}

export interface Scored {
  quality: number;
  reasons: string[];
  keyTerms: string[];
}

export function contentStems(text: string): string[] {
  return tokens(text)
    .filter((t) => !STOPWORDS.has(t) && t.length > 2 && !/^\d+$/.test(t))
    .map(stem);
}

export function buildStats(sentences: Sentence[], duration: number, punctuated: boolean, loudness?: number[]): EpisodeStats {
  const df = new Map<string, number>();
  for (const s of sentences) for (const t of new Set(contentStems(s.text))) df.set(t, (df.get(t) ?? 0) + 1);
  const n = Math.max(1, sentences.length);
  const idf = new Map<string, number>();
  for (const [t, d] of df) idf.set(t, Math.log(1 + n / d));
  const rates = sentences
    .filter((s) => s.end - s.start > 0.5)
    .map((s) => s.words.length / (s.end - s.start))
    .sort((a, b) => a - b);
  const medianRate = rates.length ? rates[Math.floor(rates.length / 2)]! : 2.5;
  const loud = loudness?.filter((v) => Number.isFinite(v));
  const loudnessMean = loud?.length ? loud.reduce((a, b) => a + b, 0) / loud.length : undefined;
  return { idf, medianRate, loudness, loudnessMean, punctuated, duration };
}

const HOUSEKEEPING = ["welcome back", "welcome to", "thanks for listening", "right back", "that's all", "that is all", "subscribe", "see you next"];
/** Show business anywhere in a window (not only its opening): sponsor reads, links, sign-offs. */
const SHOW_BUSINESS = [...HOUSEKEEPING, "brought to you by", "our sponsor", "dot com", "dot io", "show notes", "in the description", "patreon", "i'm your host", "my guest", "joined by", "take a short break", "quick break", "we're back", "we are back", "housekeeping"];

// Windows share their sentences and words, so per-sentence and per-word work is done once.
const _business = new WeakMap<Sentence, boolean>();
function _isShowBusiness(s: Sentence): boolean {
  let v = _business.get(s);
  if (v === undefined) {
    const text = ` ${tokens(s.text).join(" ")} `;
    v = SHOW_BUSINESS.some((p) => text.includes(` ${p} `));
    _business.set(s, v);
  }
  return v;
}
const _stems = new WeakMap<Sentence, string[]>();
function _sentenceStems(s: Sentence): string[] {
  let v = _stems.get(s);
  if (!v) _stems.set(s, (v = contentStems(s.text)));
  return v;
}
const _firstTok = new WeakMap<Word, string>();
function _wordToken(w: Word): string {
  let v = _firstTok.get(w);
  if (v === undefined) _firstTok.set(w, (v = tokens(w.text)[0] ?? ""));
  return v;
}

const clamp01 = (v: number) => Math.max(0, Math.min(1, v));

function _hook(first: Sentence, reasons: string[]): number {
  const toks = tokens(first.text);
  const lower = ` ${toks.join(" ")} `;
  let v = 0;
  if (first.text.trim().endsWith("?") || QUESTION_STARTS.has(toks[0] ?? "")) {
    v += 0.45;
    reasons.push("opens with a question");
  }
  if (/\d/.test(first.text) || toks.some((t) => NUMBER_WORDS.has(t))) {
    v += 0.2;
    reasons.push("opening has a number");
  }
  if (toks.some((t) => t === "you" || t === "your" || t === "you're")) {
    v += 0.15;
    reasons.push("speaks to the listener");
  }
  const strong = [...new Set(toks.filter((t) => STRONG_WORDS.has(t)))];
  if (strong.length) {
    v += 0.2;
    reasons.push(`strong words: ${strong.slice(0, 3).join(", ")}`);
  }
  if (STORY_STARTS.some((p) => lower.includes(` ${p} `))) {
    v += 0.25;
    reasons.push("story opening");
  } else if (BOLD_CLAIMS.some((p) => lower.includes(` ${p} `))) {
    v += 0.25;
    reasons.push("bold claim");
  }
  if (HOUSEKEEPING.some((p) => lower.includes(` ${p} `))) {
    v -= 0.4;
    reasons.push("show housekeeping (intro, break or outro)");
  }
  if (toks.length >= 4 && toks.length <= 25) v += 0.1;
  else if (toks.length > 35) v -= 0.15;
  return clamp01(v);
}

function _completeness(w: Window, stats: EpisodeStats, reasons: string[]): number {
  let v = 1;
  const firstTok = tokens(w.words[0]?.text ?? "")[0] ?? "";
  if (CONNECTORS.has(firstTok)) {
    v -= 0.5;
    reasons.push(`starts mid-thought ("${firstTok}")`);
  } else if (PRONOUN_STARTS.has(firstTok)) {
    v -= 0.35;
    reasons.push(`starts on an unexplained "${firstTok}"`);
  }
  const last = w.words[w.words.length - 1];
  const lastTok = tokens(last?.text ?? "").pop() ?? "";
  // A scored window holds at least one word.
  const pauseAfter = w.nextWord ? w.nextWord.start - last!.end : Infinity;
  const finished = stats.punctuated ? isTerminal(last!.text) : pauseAfter >= 0.5;
  if (!finished) v -= 0.3;
  if (CONNECTORS.has(lastTok)) v -= 0.3;
  if (v >= 0.95) reasons.push("complete thought");
  return clamp01(v);
}

function _focus(w: Window, stats: EpisodeStats, reasons: string[]): { value: number; terms: string[] } {
  const tf = new Map<string, number>();
  for (const s of w.sentences) for (const t of _sentenceStems(s)) tf.set(t, (tf.get(t) ?? 0) + 1);
  const weighted = [...tf].map(([t, n]) => [t, n * (stats.idf.get(t) ?? 1)] as const).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const total = weighted.reduce((a, [, v]) => a + v, 0);
  if (!total) return { value: 0, terms: [] };
  const top = weighted.slice(0, 5);
  const share = top.reduce((a, [, v]) => a + v, 0) / total;
  // A focused window repeats a few distinctive terms; a rambling one spreads over many.
  const repeated = top.filter(([t]) => (tf.get(t) ?? 0) >= 2).length;
  const value = clamp01(share * 0.6 + (repeated / 5) * 0.8);
  const terms = top.map(([t]) => t);
  if (repeated >= 2) reasons.push(`focused on ${terms.slice(0, 3).join(", ")}`);
  return { value, terms };
}

function _energy(w: Window, stats: EpisodeStats, reasons: string[]): number {
  const speech = w.pieces.reduce((a, p) => a + (p.end - p.start), 0) || 1;
  const rate = w.words.length / speech;
  const rateScore = clamp01(0.5 + (rate / stats.medianRate - 1) * 1.5);
  if (rateScore >= 0.7) reasons.push(`lively delivery (${rate.toFixed(1)} words/s)`);
  if (!stats.loudness?.length || stats.loudnessMean === undefined) return rateScore;
  const secs = stats.loudness.slice(Math.floor(w.start), Math.ceil(w.end)).filter((v) => Number.isFinite(v));
  if (!secs.length) return rateScore;
  const diff = secs.reduce((a, b) => a + b, 0) / secs.length - stats.loudnessMean;
  const loudScore = clamp01(0.5 + diff / 6);
  if (diff >= 1.5) reasons.push(`louder than the episode average (+${diff.toFixed(1)} dB)`);
  return (rateScore + loudScore) / 2;
}

function _clean(w: Window, reasons: string[]): number {
  const toks = w.words.map(_wordToken);
  let fillers = toks.filter((t) => FILLERS.has(t)).length;
  for (let i = 1; i < toks.length; i++) if (FILLER_PAIRS.has(`${toks[i - 1]} ${toks[i]}`)) fillers++;
  const ratio = fillers / Math.max(1, toks.length);
  const speech = w.words.reduce((a, x) => a + Math.max(0, x.end - x.start), 0);
  const density = speech / Math.max(0.1, w.end - w.start);
  const densityScore = clamp01((density - 0.45) / 0.4);
  const fillerScore = clamp01(1 - ratio * 10);
  if (fillerScore >= 0.8 && toks.length > 10) reasons.push("few fillers");
  if (densityScore < 0.3) reasons.push("long silences");
  return (fillerScore + densityScore) / 2;
}

/** Scores a window's quality, independent of any search brief. */
export function scoreWindow(w: Window, stats: EpisodeStats, target: number, range: number): Scored {
  const reasons: string[] = [];
  const hook = _hook(w.sentences[0]!, reasons); // a window holds at least one sentence
  const complete = _completeness(w, stats, reasons);
  const focus = _focus(w, stats, reasons);
  const energy = _energy(w, stats, reasons);
  const clean = _clean(w, reasons);
  const length = clamp01(1 - Math.abs(w.duration - target) / Math.max(1, range));
  const business = w.sentences.filter(_isShowBusiness).length;
  if (business) reasons.push("contains show business (intro, sponsor, break or outro)");
  const quality =
    -Math.min(0.15, 0.08 * business) +
    WEIGHTS.hook * hook +
    WEIGHTS.complete * complete +
    WEIGHTS.focus * focus.value +
    WEIGHTS.energy * energy +
    WEIGHTS.clean * clean +
    WEIGHTS.length * length;
  return { quality, reasons, keyTerms: focus.terms };
}
