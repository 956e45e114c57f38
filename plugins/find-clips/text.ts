/**
 * Text helpers for the clip finder: the transcript shapes, sentence units, tokens and fillers.
 * What a sentence says (parts of speech, questions, claims) is read in nlp.ts and features.ts.
 */
import { sentenceSpans } from "./nlp.js";
import { restoreSentenceEnds } from "./restore.js";

export interface Word {
  text: string;
  start: number;
  end: number;
  confidence?: number;
  speaker?: string | null;
}

export interface Segment {
  start: number;
  end: number;
  text: string;
  speaker?: string | null;
}

export interface Transcript {
  engine?: string;
  language?: string;
  duration?: number;
  words: Word[];
  segments?: Segment[];
}

/** A run of words that forms one sentence (or, without punctuation, one pause-delimited phrase). */
export interface Sentence {
  index: number;
  start: number;
  end: number;
  words: Word[];
  text: string;
  /** Index of its first word in the transcript's word list. */
  firstWord: number;
  /**
   * Whether the boundary before it is sure: always when punctuated; without punctuation, only where
   * restore.ts is sure (a new speaker, a long pause, grammar that agrees), not a likely comma.
   */
  sure: boolean;
}

const TERMINAL = /[.!?…]["'”’)\]]*$/;

export const isTerminal = (text: string) => TERMINAL.test(text.trim());

/**
 * Splits the words into sentences. A change of speaker always ends one. Transcripts with
 * punctuation split where wink-nlp ends a sentence (so "Dr." or "3.5" do not); unpunctuated ones
 * (pocketsphinx) where restore.ts reads a sentence end from the pause and the grammar. Units longer than
 * `maxUnit` seconds are split again at their longest pause so that windows can still be built.
 */
export function toSentences(words: Word[], _segments: Segment[] = [], opts: { maxUnit?: number } = {}): Sentence[] {
  const maxUnit = opts.maxUnit ?? 30;
  if (words.length === 0) return [];
  const punctuated = words.filter((w) => isTerminal(w.text)).length;
  const usePunct = punctuated >= Math.max(1, words.length / 80);
  // Unpunctuated (raw engine text): ends restored from pauses and grammar (restore.ts); the
  // engine's segments are not used, as a fixed-length segment split falls mid-sentence.
  const ends: Map<number, boolean> = usePunct
    ? new Map([..._sentenceEnds(words)].map((i) => [i, true]))
    : restoreSentenceEnds(words);
  const groups: Word[][] = [];
  let current: Word[] = [];
  const firstIdx: number[] = [];
  const sureStart: boolean[] = [];
  let currentFirst = 0;
  words.forEach((w, i) => {
    if (current.length === 0) currentFirst = i;
    current.push(w);
    const next = words[i + 1];
    const gap = next ? next.start - w.end : Infinity;
    const turn = !!next && (next.speaker ?? null) !== (w.speaker ?? null);
    const boundary = turn || ends.has(i) || (usePunct && gap >= 2.5);
    if (boundary || !next) {
      // Sure after a sure end, a change of speaker or a long pause (absent from ends: undefined).
      sureStart.push(ends.get(currentFirst - 1) !== false);
      groups.push(current);
      firstIdx.push(currentFirst);
      current = [];
    }
  });
  const out: Sentence[] = [];
  groups.forEach((g, gi) => {
    for (const [part, offset] of _splitLong(g, maxUnit, 0)) {
      out.push({
        index: out.length,
        // Groups and the parts _splitLong makes of them are never empty.
        start: part[0]!.start,
        end: part[part.length - 1]!.end,
        words: part,
        text: part.map((w) => w.text.trim()).join(" "),
        firstWord: firstIdx[gi]! + offset, // one firstIdx per group
        // A split inside an over-long unit is at a pause, not a known sentence end.
        sure: offset === 0 && sureStart[gi]!,
      });
    }
  });
  return out;
}

/** Indexes of the words that end a sentence, read by wink-nlp one speaker turn at a time. */
function _sentenceEnds(words: Word[]): Set<number> {
  const ends = new Set<number>();
  let from = 0;
  for (let i = 0; i < words.length; i++) {
    const next = words[i + 1];
    if (next && (next.speaker ?? null) === (words[i]!.speaker ?? null)) continue;
    // One turn: words[from..i]. Word j covers characters [starts[j], starts[j] + its length).
    const starts: number[] = [];
    let text = "";
    for (let j = from; j <= i; j++) {
      if (text) text += " ";
      starts.push(text.length);
      text += words[j]!.text.trim();
    }
    for (const [, end] of sentenceSpans(text)) {
      let k = starts.length - 1;
      while (k > 0 && starts[k]! >= end) k--;
      ends.add(from + k);
    }
    from = i + 1;
  }
  return ends;
}

function _splitLong(words: Word[], maxUnit: number, offset: number): Array<[Word[], number]> {
  const span = words[words.length - 1]!.end - words[0]!.start; // words is never empty
  if (span <= maxUnit || words.length < 2) return [[words, offset]];
  let best = 1;
  let bestGap = -Infinity;
  for (let i = 1; i < words.length; i++) {
    // Prefer the longest pause, and among similar pauses the one nearest the middle.
    const gap = words[i]!.start - words[i - 1]!.end; // 1 <= i < words.length
    const centre = 1 - Math.abs(i / words.length - 0.5);
    const value = gap + centre * 0.05;
    if (value > bestGap) {
      bestGap = value;
      best = i;
    }
  }
  return [
    ..._splitLong(words.slice(0, best), maxUnit, offset),
    ..._splitLong(words.slice(best), maxUnit, offset + best),
  ];
}

/** Lower-case word tokens of a text, punctuation dropped, apostrophes kept inside words. */
export function tokens(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/[’‘]/g, "'")
      .match(/[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu) ?? []
  );
}

export const FILLERS = new Set(["um", "uh", "erm", "er", "ah", "hmm", "mm", "uhm", "umm"]);
export const FILLER_PAIRS = new Set(["you know", "i mean", "sort of", "kind of"]);
