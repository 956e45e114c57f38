/**
 * The local clip finder. Candidate windows are runs of whole sentences whose spoken length fits the
 * limits; each is scored (see score.ts), optionally blended with BM25 relevance to a brief, and the
 * best non-overlapping ones win. Everything here is pure and deterministic, so it can be unit tested
 * and benchmarked without media.
 */
import { createHash } from "node:crypto";
import { buildStats, contentStems, scoreWindow, type EpisodeStats, type Window } from "./score.js";
import { FILLERS, isTerminal, toSentences, tokens, type Transcript, type Word } from "./text.js";

export interface FindOptions {
  /** Wanted clip length, seconds. */
  target: number;
  min: number;
  max: number;
  /** Most clips to return. */
  count: number;
  /** Search brief: windows are ranked by relevance to it. */
  about?: string;
  /** Stable seed for refs (the source's storage key). */
  seed: string;
  /** Recording length; defaults to the transcript's. */
  duration?: number;
  /** Loudness per second (RMS dBFS), if measured. */
  loudness?: number[];
  /** Clips already found for this episode: new ones must not duplicate them. */
  existing?: Clip[];
}

export interface Clip {
  number: number;
  ref: string;
  title: string;
  hook: string;
  start: number;
  end: number;
  duration: number;
  pieces: Array<{ start: number; end: number }>;
  score: { value: number; reasons: string[] };
  about?: string;
}

/** Silences longer than this inside a clip are cut out. */
const CUT_SILENCE = 1.2;
/** A gap holding a filler word ("um") this long or longer is cut out. */
const CUT_FILLER = 0.5;
const round = (v: number) => Math.round(v * 1000) / 1000;

export function clipRef(seed: string, start: number, end: number, taken: Set<string> = new Set()): string {
  const hash = createHash("sha1").update(`${seed}|${start.toFixed(2)}|${end.toFixed(2)}`).digest("hex");
  for (let len = 4; len <= hash.length; len++) {
    const ref = `c${hash.slice(0, len - 1)}`;
    if (!taken.has(ref)) return ref;
  }
  return `c${hash}`;
}

/** The spans of a run of words worth keeping: long silences and isolated fillers are dropped. */
export function toPieces(words: Word[], bounds: { start: number; end: number }) {
  const pieces: Array<{ start: number; end: number }> = [];
  let start = bounds.start;
  let prev: Word | undefined;
  let skippingFiller = false;
  for (const w of words) {
    const isFiller = FILLERS.has(tokens(w.text)[0] ?? "");
    if (prev && isFiller) {
      // Look at the gap this filler sits in: cut only when removing it leaves a clean join.
      skippingFiller = true;
      continue;
    }
    if (prev) {
      const gap = w.start - prev.end;
      const cut = skippingFiller ? gap >= CUT_FILLER : gap >= CUT_SILENCE;
      if (cut) {
        pieces.push({ start, end: prev.end + (skippingFiller ? 0.1 : 0.25) });
        start = w.start - (skippingFiller ? 0.08 : 0.2);
      }
    }
    skippingFiller = false;
    prev = w;
  }
  pieces.push({ start, end: bounds.end });
  return pieces.map((p) => ({ start: round(p.start), end: round(p.end) })).filter((p) => p.end - p.start > 0.05);
}

function _window(words: Word[], from: number, to: number, duration: number, sentences: Window["sentences"]): Window {
  const first = words[from];
  const last = words[to];
  const prev = words[from - 1];
  const next = words[to + 1];
  const start = Math.max(0, Math.min(first.start, Math.max(first.start - 0.15, prev ? prev.end : 0)));
  const end = Math.min(duration, Math.max(last.end, Math.min(last.end + 0.3, next ? next.start : duration)));
  const ws = words.slice(from, to + 1);
  const pieces = toPieces(ws, { start, end });
  const len = pieces.reduce((a, p) => a + (p.end - p.start), 0);
  return { sentences, words: ws, start, end, pieces, duration: len, nextWord: next };
}

function _bm25(windows: Window[], about: string, stats: EpisodeStats): number[] {
  const query = [...new Set(contentStems(about))];
  if (!query.length) return windows.map(() => 0);
  const lens = windows.map((w) => w.words.length);
  const avg = lens.reduce((a, b) => a + b, 0) / Math.max(1, lens.length);
  const k1 = 1.2;
  const b = 0.75;
  return windows.map((w, i) => {
    const tf = new Map<string, number>();
    for (const t of contentStems(w.words.map((x) => x.text).join(" "))) tf.set(t, (tf.get(t) ?? 0) + 1);
    let s = 0;
    for (const q of query) {
      const f = tf.get(q) ?? 0;
      if (!f) continue;
      s += (stats.idf.get(q) ?? 1) * ((f * (k1 + 1)) / (f + k1 * (1 - b + (b * lens[i]) / avg)));
    }
    return s;
  });
}

function _title(w: Window, keyTerms: string[]): string {
  const hook = w.sentences[0].text.trim();
  if (hook.endsWith("?") && hook.length <= 70) return hook;
  // The most weighted key term, shown as the word the speaker used, with its neighbour if that is
  // a content word too ("pricing strategy" rather than "pricing").
  const stems = w.words.map((x) => contentStems(x.text)[0] ?? "");
  const raw = (i: number) => tokens(w.words[i].text).join("");
  for (const term of keyTerms) {
    const i = stems.indexOf(term);
    // A title term must recur: a word said once is rarely what the clip is about.
    if (i < 0 || stems.indexOf(term, i + 1) < 0) continue;
    const pair = stems[i + 1] && keyTerms.includes(stems[i + 1]) ? `${raw(i)} ${raw(i + 1)}` : stems[i - 1] && keyTerms.includes(stems[i - 1]) ? `${raw(i - 1)} ${raw(i)}` : raw(i);
    return pair.replace(/\b\p{L}/gu, (c) => c.toUpperCase());
  }
  return hook.length <= 60 ? hook : `${hook.slice(0, 57).replace(/\s+\S*$/, "")}…`;
}

const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));

export function findClips(transcript: Transcript, opts: FindOptions): Clip[] {
  const words = (transcript.words ?? []).filter((w) => Number.isFinite(w.start) && Number.isFinite(w.end) && w.text?.trim());
  const duration = opts.duration ?? transcript.duration ?? (words.length ? words[words.length - 1].end : 0);
  const sentences = toSentences(words, transcript.segments ?? [], { maxUnit: Math.max(5, opts.max / 2) });
  const punctuated = sentences.some((s) => isTerminal(s.text));
  const stats = buildStats(sentences, duration, punctuated, opts.loudness);
  const existing = opts.existing ?? [];
  const taken = new Set(existing.map((c) => c.ref));

  if (duration < opts.min || words.length === 0) {
    if (words.length === 0 && duration >= opts.min) return existing;
    const whole: Window = { sentences, words, start: 0, end: round(duration), pieces: [{ start: 0, end: round(duration) }], duration: round(duration) };
    const scored = sentences.length ? scoreWindow(whole, stats, opts.target, opts.max - opts.min) : { quality: 0.5, reasons: [], keyTerms: [] };
    return [
      {
        number: 1,
        ref: clipRef(opts.seed, 0, duration, taken),
        title: sentences.length ? _title(whole, scored.keyTerms) : "Full recording",
        hook: sentences[0]?.text ?? "",
        start: 0,
        end: round(duration),
        duration: round(duration),
        pieces: whole.pieces,
        score: { value: Math.round(scored.quality * 100), reasons: ["whole recording (shorter than the shortest clip)", ...scored.reasons] },
      },
    ];
  }

  const build = (min: number) => {
    const out: Window[] = [];
    for (let i = 0; i < sentences.length; i++) {
      for (let j = i; j < sentences.length; j++) {
        if (sentences[j].end - sentences[i].start > opts.max + 5) break;
        const from = sentences[i].firstWord;
        const to = sentences[j].firstWord + sentences[j].words.length - 1;
        const w = _window(words, from, to, duration, sentences.slice(i, j + 1));
        if (w.duration >= min && w.duration <= opts.max) out.push(w);
      }
    }
    return out;
  };
  let windows = build(opts.min);
  // Nothing fits (one very long monologue without pauses, or sparse speech): accept shorter ones.
  if (!windows.length) windows = build(0);

  const rel = opts.about ? _bm25(windows, opts.about, stats) : [];
  const maxRel = Math.max(0, ...rel);
  const ranked = windows
    .map((w, i) => {
      const s = scoreWindow(w, stats, opts.target, opts.max - opts.min);
      let value = s.quality;
      const reasons = [...s.reasons];
      if (opts.about) {
        const r = maxRel > 0 ? rel[i] / maxRel : 0;
        value = 0.55 * r + 0.45 * s.quality;
        if (r > 0) {
          const q = new Set(contentStems(opts.about));
          const hits = [...new Set(w.words.flatMap((x) => contentStems(x.text)).filter((t) => q.has(t)))];
          reasons.unshift(`matches the brief: ${hits.slice(0, 4).join(", ")}`);
        }
        return { w, s, value, reasons, relevant: r > 0 };
      }
      return { w, s, value, reasons, relevant: true };
    })
    .filter((x) => x.relevant)
    .sort((a, b) => b.value - a.value || a.w.start - b.w.start);

  const picked: typeof ranked = [];
  const blocked = existing.map((c) => ({ start: c.start, end: c.end }));
  for (const c of ranked) {
    if (picked.length >= opts.count) break;
    const clash = [...blocked, ...picked.map((p) => p.w)].some((b) => overlap(b, c.w) > 0);
    if (!clash) picked.push(c);
  }
  const firstNumber = existing.reduce((a, c) => Math.max(a, c.number), 0) + 1;
  const fresh = picked.map((p, i): Clip => {
    const ref = clipRef(opts.seed, p.w.start, p.w.end, taken);
    taken.add(ref);
    return {
      number: firstNumber + i,
      ref,
      title: _title(p.w, p.s.keyTerms),
      hook: p.w.sentences[0].text.trim(),
      start: round(p.w.start),
      end: round(p.w.end),
      duration: round(p.w.duration),
      pieces: p.w.pieces,
      score: { value: Math.round(Math.max(0, Math.min(1, p.value)) * 100), reasons: p.reasons },
      ...(opts.about ? { about: opts.about } : {}),
    };
  });
  return [...existing, ...fresh];
}
