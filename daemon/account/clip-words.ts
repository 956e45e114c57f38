/**
 * A clip's words as a user edits them (issue 19, "edit before render"), without a database: the
 * transcript's words with the clip's caption edits laid over them, its caption cues, a cue's text
 * replaced while keeping its times, and the transcript's sentences that trim, extend and snap a clip.
 *
 * Everything here is on the episode's timeline (seconds from the recording's start); a clip's own
 * timeline comes from retimeWords over its pieces, as the cut stage and the captions read use.
 */
import { toCues, type TranscriptWord } from "../render/captions.js";
import { retimeWords, type Piece } from "../render/timeline.js";

/** A word of the episode; `i` is the transcript word it stands for (edited words take the one they replaced). */
export interface EpisodeWord {
  text: string;
  start: number;
  end: number;
  confidence?: number;
  speaker?: string | null;
  /** Set by the editor: drawn in the highlight colour (true) or never (false), whatever emphasis finds. */
  emphasis?: boolean;
  i: number;
}

/** The clips.caption_words column: the transcript's words [range[0], range[1]) replaced by `words`. */
export interface CaptionEdits {
  range: [number, number];
  words: EpisodeWord[];
}

/** One caption as the captions read and the editor list it, with the episode words it shows. */
export interface ClipCue {
  id: string;
  start: number;
  end: number;
  text: string;
  words: EpisodeWord[];
}

export interface Sentence {
  start: number;
  end: number;
  text: string;
}

/** The shortest and longest clip an edit or a user's own times may make (a found clip's 180 s target + 20 %). */
export const CLIP_SECONDS = { min: 2, max: 216 } as const;

const round = (v: number) => Math.round(v * 1000) / 1000;

/** The transcript's words with the clip's edits in place, in time order. */
export function editedWords(transcript: TranscriptWord[], edits: CaptionEdits | null | undefined): EpisodeWord[] {
  const all = transcript.map((w, i) => ({ ...w, i }));
  if (!edits?.range) return all;
  const [first, end] = edits.range;
  const kept = all.filter((w) => w.i < first || w.i >= end);
  return [...kept, ...edits.words].sort((a, b) => a.start - b.start || a.i - b.i);
}

/** The clip's caption cues (ids "1", "2", … as GET /clips/{id}/captions numbers them). */
export function clipCues(words: EpisodeWord[], pieces: Piece[]): ClipCue[] {
  const tagged = words.map((w, k) => ({ ...w, k }));
  const timed = retimeWords(tagged, pieces) as Array<EpisodeWord & { k: number }>;
  return toCues(timed as TranscriptWord[]).map((c, n) => ({
    id: String(n + 1),
    start: c.start,
    end: c.end,
    text: c.lines.join(" "),
    words: timed.slice(c.words[0], c.words[1]).map((w) => words[w.k]!),
  }));
}

/**
 * New words over the span of old ones: the same count keeps each old word's times; otherwise the
 * old words' spoken time (their intervals laid end to end, pauses left out) is shared by characters,
 * and each new word is held inside the old interval it starts in, so no word lands in a cut pause.
 */
export function spreadWords(texts: string[], old: EpisodeWord[]): EpisodeWord[] {
  if (!old.length) return [];
  const base = (o: EpisodeWord) => ({ confidence: 1, ...(o.speaker ? { speaker: o.speaker } : {}), i: o.i });
  if (texts.length === old.length) {
    // A word sent back as the captions read showed it masked ("f***") keeps the word itself: the
    // mask is how a censoring look shows it, not a new word to burn as asterisks.
    return texts.map((text, n) => ({
      ...base(old[n]!),
      text: isMaskOf(text, old[n]!.text) ? old[n]!.text : text,
      start: old[n]!.start,
      end: old[n]!.end,
    }));
  }
  const spans = old.map((o) => ({ o, len: Math.max(0, o.end - o.start) }));
  const speech = spans.reduce((a, s) => a + s.len, 0);
  if (speech <= 0) return texts.map((text) => ({ ...base(old[0]!), text, start: old[0]!.start, end: old.at(-1)!.end }));
  const chars = texts.reduce((a, t) => a + t.length, 0);
  // Position p (seconds of speech) → the old interval holding it and the time there.
  const at = (p: number) => {
    let left = p;
    for (const s of spans) {
      if (left <= s.len || s === spans.at(-1)) return { s, t: s.o.start + Math.min(left, s.len) };
      left -= s.len;
    }
    return { s: spans.at(-1)!, t: spans.at(-1)!.o.end };
  };
  let pos = 0;
  return texts.map((text) => {
    const share = (text.length / chars) * speech;
    const from = at(pos + 1e-6);
    pos += share;
    const start = round(from.t);
    const end = round(Math.max(start + 0.01, Math.min(from.s.o.end, at(pos).t)));
    return { ...base(from.s.o), text, start, end };
  });
}

/** Whether `shown` is `word` with some of its letters after the first turned into asterisks. */
export function isMaskOf(shown: string, word: string): boolean {
  const a = [...shown];
  const b = [...word];
  if (a.length !== b.length || !a.includes("*")) return false;
  return a.every((c, i) => c === b[i] || (c === "*" && i > 0 && /[\p{L}\p{N}]/u.test(b[i]!)));
}

/**
 * Replaces the text of cues: each cue's words become the new text's words over the cue's times.
 * Returns the clip's new caption edits, covering every transcript word touched now or before.
 */
export function replaceCues(
  current: EpisodeWord[],
  changes: Array<{ cue: ClipCue; text: string; emphasis?: boolean[] }>,
  prev: CaptionEdits | null | undefined,
): CaptionEdits {
  const gone = new Set<EpisodeWord>();
  const added: EpisodeWord[] = [];
  for (const { cue, text, emphasis } of changes) {
    for (const w of cue.words) gone.add(w);
    const spread = spreadWords(text.trim().split(/\s+/), cue.words);
    // The editor's per-word emphasis, one flag a word of the new text; a word without one keeps none.
    added.push(...spread.map((w, n) => (typeof emphasis?.[n] === "boolean" ? { ...w, emphasis: emphasis[n] } : w)));
  }
  const words = [...current.filter((w) => !gone.has(w)), ...added].sort((a, b) => a.start - b.start || a.i - b.i);
  const touched = [...gone].map((w) => w.i);
  const first = Math.min(...touched, prev?.range?.[0] ?? Infinity);
  const end = Math.max(...touched.map((i) => i + 1), prev?.range?.[1] ?? -Infinity);
  return { range: [first, end], words: words.filter((w) => w.i >= first && w.i < end) };
}

const TERMINAL = /[.!?…]["'”’)\]]*$/;

/**
 * The transcript's sentences. A change of speaker always ends one. A punctuated transcript (at least
 * one sentence end per 80 words) ends them at . ! ? … or a pause of 2.5 s; an unpunctuated one
 * (pocketsphinx) at a pause of 0.6 s, as the clip finder reads them.
 */
export function sentencesOf(words: Array<Pick<EpisodeWord, "text" | "start" | "end" | "speaker">>): Sentence[] {
  const punctuated = words.filter((w) => TERMINAL.test(w.text.trim())).length >= Math.max(1, words.length / 80);
  const out: Sentence[] = [];
  let group: typeof words = [];
  words.forEach((w, n) => {
    group.push(w);
    const next = words[n + 1];
    const gap = next ? next.start - w.end : Infinity;
    const ends =
      !next ||
      (next.speaker ?? null) !== (w.speaker ?? null) ||
      (punctuated ? TERMINAL.test(w.text.trim()) || gap >= 2.5 : gap >= 0.6);
    if (ends) {
      out.push({ start: group[0]!.start, end: w.end, text: group.map((x) => x.text.trim()).join(" ") });
      group = [];
    }
  });
  return out;
}

/** Why a span cannot be made, naming the body field the user should change. */
export class SpanRefusal extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** Sentences that overlap [start, end] (by more than a hair): the span snapped outward to whole sentences. */
export function snapToSentences(
  sentences: Sentence[],
  start: number,
  end: number,
  fields = { start: "start", end: "end" },
): { start: number; end: number; first: number; last: number } {
  const eps = 0.02;
  const first = sentences.findIndex((s) => s.end > start + eps);
  let last = -1;
  sentences.forEach((s, n) => {
    if (s.start < end - eps) last = n;
  });
  if (first < 0 || last < first)
    throw new SpanRefusal(fields.start, `no sentence of the transcript is spoken between ${start} s and ${end} s`);
  return { start: sentences[first]!.start, end: sentences[last]!.end, first, last };
}

/** Checks a span's length against CLIP_SECONDS, naming `field` when it is out of bounds. */
export function checkLength(start: number, end: number, field: string): void {
  const len = end - start;
  if (len < CLIP_SECONDS.min)
    throw new SpanRefusal(field, `the clip would be ${len.toFixed(1)} s long; at least ${CLIP_SECONDS.min} s`);
  if (len > CLIP_SECONDS.max)
    throw new SpanRefusal(field, `the clip would be ${len.toFixed(1)} s long; at most ${CLIP_SECONDS.max} s`);
}

/**
 * A clip moved by whole sentences at either end: a positive delta adds sentences before its start
 * (or after its end), a negative one drops its first (or last) sentences. An end not moved keeps its
 * exact time; a moved one lands on a sentence boundary. Pieces (the stretches the clip joins, its
 * cut pauses) are clipped to the new span, the first and last stretched to reach it.
 */
export function shiftBySentences(
  sentences: Sentence[],
  clip: { start: number; end: number; pieces: Piece[] },
  delta: { start: number; end: number },
): { start: number; end: number; pieces: Piece[]; firstSentence: Sentence } {
  const fields = { start: "start_sentence_delta", end: "end_sentence_delta" };
  const snapped = snapToSentences(sentences, clip.start, clip.end, fields);
  const first = snapped.first - delta.start;
  const last = snapped.last + delta.end;
  if (first < 0)
    throw new SpanRefusal(
      fields.start,
      `the clip can start at most ${snapped.first} sentence(s) earlier (the episode's first sentence)`,
    );
  if (last > sentences.length - 1)
    throw new SpanRefusal(
      fields.end,
      `the clip can end at most ${sentences.length - 1 - snapped.last} sentence(s) later (the episode's last sentence)`,
    );
  if (last < first)
    throw new SpanRefusal(
      delta.end ? fields.end : fields.start,
      `trimming that much leaves no sentence in the clip (it has ${snapped.last - snapped.first + 1})`,
    );
  const start = delta.start ? sentences[first]!.start : clip.start;
  const end = delta.end ? sentences[last]!.end : clip.end;
  checkLength(start, end, delta.end ? fields.end : fields.start);
  const pieces = clip.pieces
    .map((p) => ({ start: Math.max(p.start, start), end: Math.min(p.end, end) }))
    .filter((p) => p.end - p.start >= 0.04);
  if (!pieces.length) pieces.push({ start, end });
  pieces[0]!.start = Math.min(pieces[0]!.start, start);
  pieces.at(-1)!.end = Math.max(pieces.at(-1)!.end, end);
  return {
    start: round(start),
    end: round(end),
    pieces: pieces.map((p) => ({ start: round(p.start), end: round(p.end) })),
    firstSentence: sentences[first]!,
  };
}
