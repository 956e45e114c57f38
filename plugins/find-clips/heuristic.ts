/**
 * The local clip finder. Candidate windows are runs of whole sentences whose spoken length fits the
 * limits; each is scored (see score.ts), optionally blended with BM25 relevance to a brief, and the
 * best non-overlapping ones win. Everything here is pure and deterministic, so it can be unit tested
 * and benchmarked without media.
 *
 * Why ~280 lines: window building, BM25 and the overlap-free pick share the sentence and window
 * types and one scoring pass; split apart, each half would need the other's internals.
 */
import { createHash } from "node:crypto";
import { buildStats, endsMidSentence, scoreWindow, type EpisodeStats, type Scored, type Window } from "./score.js";
import { titleFor } from "./titles.js";
import { endsOpen, facts } from "./features.js";
import { briefScorer, pickAnswers, withAnswer } from "./brief.js";
import type { Clip } from "./clip.js";
import type { BriefWeights } from "./brief-weights.js";
import { momentsOf } from "./moments.js";
import { rankScore, shippedRanker, weighed, type Ranker } from "./ranker.js";
import { againstEpisode } from "./rank-features.js";
export type { Clip } from "./clip.js";
import { round, toPieces } from "./pieces.js";
import { isTerminal, toSentences, type Sentence, type Transcript, type Word } from "./text.js";

// Moved to their own modules; re-exported for the callers that import them from here.
export { bm25 } from "./brief.js";
export { round, toPieces };

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
  /** The fitted ranker to score windows with: the shipped one when absent, the hand-set weights when null. */
  ranker?: Ranker | null;
  /** The fitted brief weights: the shipped ones when absent. */
  briefWeights?: BriefWeights;
}

export function clipRef(seed: string, start: number, end: number, taken: Set<string> = new Set()): string {
  const hash = createHash("sha1")
    .update(`${seed}|${start.toFixed(2)}|${end.toFixed(2)}`)
    .digest("hex");
  for (let len = 4; len <= hash.length; len++) {
    const ref = `c${hash.slice(0, len - 1)}`;
    if (!taken.has(ref)) return ref;
  }
  return `c${hash}`;
}

/** The window of whole sentences from word `from` to word `to`, with a little air at each edge. */
export function toWindow(
  words: Word[],
  from: number,
  to: number,
  duration: number,
  sentences: Window["sentences"],
): Window {
  // from and to are word indexes (0 <= from <= to < words.length), as every caller passes them.
  const first = words[from]!;
  const last = words[to]!;
  const prev = words[from - 1];
  const next = words[to + 1];
  const start = Math.max(0, Math.min(first.start, Math.max(first.start - 0.15, prev ? prev.end : 0)));
  // The air after the last word grows with the pause that follows (half of it, 0.3–0.6 s): a speech
  // engine often ends a sentence's last word early or misses it ("of them" heard as "or"), and the
  // pause before the next sentence is where the real end is.
  const pause = (next ? next.start : duration) - last.end;
  const air = Math.min(0.6, Math.max(0.3, pause / 2));
  const end = Math.min(duration, Math.max(last.end, Math.min(last.end + air, next ? next.start : duration)));
  const ws = words.slice(from, to + 1);
  const pieces = toPieces(ws, { start, end });
  const len = pieces.reduce((a, p) => a + (p.end - p.start), 0);
  return { sentences, words: ws, start, end, pieces, duration: len, nextWord: next };
}

/** Titles are made in titles.ts; re-exported for the llm engine's fallback title. */
export { titleFor } from "./titles.js";

/** The least quality (0..1) a clip needs to be listed outside search mode. */
export const FLOOR = 0.2;

export const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));

/** What every engine needs from a transcript: clean words, sentences and episode statistics. */
export interface Prepared {
  words: Word[];
  duration: number;
  sentences: Sentence[];
  stats: EpisodeStats;
}

export function prepare(transcript: Transcript, opts: Pick<FindOptions, "duration" | "max" | "loudness">): Prepared {
  const words = (transcript.words ?? []).filter(
    (w) => Number.isFinite(w.start) && Number.isFinite(w.end) && w.text?.trim(),
  );
  const duration = opts.duration || transcript.duration || (words.length ? words[words.length - 1]!.end : 0);
  const sentences = toSentences(words, transcript.segments ?? [], { maxUnit: Math.max(5, opts.max / 2) });
  const punctuated = sentences.some((s) => isTerminal(s.text));
  return { words, duration, sentences, stats: buildStats(sentences, duration, punctuated, opts.loudness) };
}

/** The one clip of a recording shorter than the shortest allowed clip: all of it. */
function _wholeClip(p: Prepared, opts: FindOptions, existing: Clip[], taken: Set<string>): Clip[] {
  const { words, sentences, stats } = p;
  const duration = round(p.duration);
  // Search mode on a short recording: its one clip may already be in the list.
  const had = existing.find(
    (c) => Number.isFinite(c?.start) && Number.isFinite(c?.end) && overlap(c, { start: 0, end: duration }) > 0,
  );
  if (had) return opts.about ? existing.map((c) => (c === had ? withAnswer(c, opts.about!, 0) : c)) : existing;
  const whole: Window = { sentences, words, start: 0, end: duration, pieces: [{ start: 0, end: duration }], duration };
  const scored = sentences.length
    ? scoreWindow(whole, stats, opts.target, opts.max - opts.min)
    : { quality: 0.5, reasons: [], keyTerms: [], scores: undefined };
  return [
    ...existing,
    {
      number: existing.reduce((a, c) => Math.max(a, c.number ?? 0), 0) + 1,
      ref: clipRef(opts.seed, 0, duration, taken),
      title: sentences.length ? titleFor(whole, scored.keyTerms) : "Full recording",
      hook: sentences[0]?.text ?? "",
      start: 0,
      end: duration,
      duration,
      pieces: whole.pieces,
      score: {
        value: Math.round(scored.quality * 100),
        reasons: ["whole recording (shorter than the shortest clip)", ...scored.reasons],
      },
      ...(scored.scores ? { scores: scored.scores } : {}),
      ...(opts.about ? { about: opts.about } : {}),
    },
  ];
}

/** True when the recording is too short for any clip within the limits: it becomes one clip. */
export const isShortRecording = (p: Prepared, min: number) => p.duration > 0 && p.duration < min;

/**
 * The candidate windows of an episode, scored: runs of whole sentences whose spoken length fits the
 * limits, that land (no question or set-up last, no cut mid-sentence) and start and end on sure
 * sentence ends while any such remain. The fit reads the same candidates the engine ranks.
 */
export function candidatesOf(
  p: Prepared,
  opts: Pick<FindOptions, "min" | "max" | "target" | "ranker">,
): Array<{ w: Window; s: Scored }> {
  const { words, duration, sentences, stats } = p;
  const build = (min: number) => {
    const out: Window[] = [];
    for (let i = 0; i < sentences.length; i++) {
      const si = sentences[i]!; // i < sentences.length
      for (let j = i; j < sentences.length; j++) {
        const sj = sentences[j]!; // j < sentences.length
        if (sj.end - si.start > opts.max + 5) break;
        const from = si.firstWord;
        const to = sj.firstWord + sj.words.length - 1;
        const w = toWindow(words, from, to, duration, sentences.slice(i, j + 1));
        if (w.duration >= min && w.duration <= opts.max) out.push(w);
      }
    }
    return out;
  };
  let windows = build(opts.min);
  // Nothing fits (one very long monologue without pauses, or sparse speech): accept shorter ones.
  if (!windows.length) windows = build(0);
  // A clip never ends on a question (the host's next one), on a line that only sets up the next, or
  // (unpunctuated) at a pause shorter than a sentence's: while any other window remains.
  const landed = windows.filter((w) => !endsOpen(w.sentences[w.sentences.length - 1]!) && !endsMidSentence(w, stats));
  if (landed.length) windows = landed;
  // Raw engine text: clips start and end on sentence ends restore.ts is sure of, while any remain.
  const sure = windows.filter((w) => w.sentences[0]!.sure && (sentences[w.sentences.at(-1)!.index + 1]?.sure ?? true));
  if (sure.length) windows = sure;
  // An advertisement is never a clip, however it reads: a product rule, not a judgement to learn.
  const noAds = windows.filter((w) => !w.sentences.some((s) => facts(s).show === "sponsor read"));
  if (noAds.length) windows = noAds;

  const scored = windows.map((w) => ({ w, s: scoreWindow(w, stats, opts.target, opts.max - opts.min) }));
  const ranker = opts.ranker === undefined ? shippedRanker() : (opts.ranker ?? undefined);
  if (!ranker || !scored.length) return scored;
  // The fitted ranker reads each window against the episode's other candidates, so it scores them together.
  const xs = againstEpisode(scored.map(({ s }) => s.features!));
  return scored.map(({ w, s }, i) => {
    const { up, down } = weighed(ranker, xs[i]!);
    const reasons = [...s.reasons];
    if (up.length) reasons.push(`weighs most for it: ${up.join(", ")}`);
    if (down.length) reasons.push(`weighs against it: ${down.join(", ")}`);
    return { w, s: { ...s, quality: rankScore(ranker, xs[i]!), reasons } };
  });
}

/** Whether most of a window's words are show business (welcome, thanks, sign-off, housekeeping). */
const mostlyShow = (w: Window) =>
  w.sentences.reduce((a, s) => a + (facts(s).show ? s.words.length : 0), 0) >= 0.5 * w.words.length;

export function findClips(transcript: Transcript, opts: FindOptions, prepared?: Prepared): Clip[] {
  const p = prepared ?? prepare(transcript, opts);
  const { words, duration } = p;
  const existing = opts.existing ?? [];
  const taken = new Set(existing.map((c) => c.ref));

  if (words.length === 0) return duration > 0 && duration < opts.min ? _wholeClip(p, opts, existing, taken) : existing;
  if (duration < opts.min) return _wholeClip(p, opts, existing, taken);

  const scored = candidatesOf(p, opts);
  // A brief is matched against the episode's moments (moments.ts), the passages the scorer forms.
  const candidates = opts.about ? momentsOf(scored) : scored;
  const brief = opts.about
    ? briefScorer(
        candidates.map((x) => x.w),
        opts.about,
        duration,
        { qualities: candidates.map((x) => x.s.quality), weights: opts.briefWeights },
      )
    : undefined;
  const ranked = candidates
    .map(({ w, s }, i) => {
      if (!brief) return { w, s, value: s.quality, reasons: [...s.reasons], relevant: true };
      const b = brief(i, s.quality);
      return {
        w,
        s,
        value: b.value,
        reasons: b.reason ? [b.reason, ...s.reasons] : [...s.reasons],
        relevant: b.relevant,
      };
    })
    .filter((x) => x.relevant)
    .sort((a, b) => b.value - a.value || a.w.start - b.w.start);

  // A brief's best answer may be a clip already on the list: it is marked, keeping its number and ref.
  // Below FLOOR a window is no moment (a sign-off, housekeeping, chat): not listed unless it is the only one.
  // Nor is a passage mostly of the show's own framing (its welcome, a sign-off), whatever the ranker says.
  const picked = pickAnswers(ranked, existing, opts.count).filter(
    (p, i) => opts.about || i === 0 || (p.pick.value >= FLOOR && !mostlyShow(p.pick.w)),
  );
  const answered = new Map(picked.flatMap((p, rank) => (p.existing ? [[p.existing, rank] as const] : [])));
  let next = existing.reduce((a, c) => Math.max(a, c.number ?? 0), 0) + 1;
  const fresh = picked.flatMap(({ pick: p, existing: had }, rank): Clip[] => {
    if (had) return [];
    const ref = clipRef(opts.seed, p.w.start, p.w.end, taken);
    taken.add(ref);
    const clip: Clip = {
      number: next++,
      ref,
      title: titleFor(p.w, p.s.keyTerms),
      hook: p.w.sentences[0]!.text.trim(),
      start: round(p.w.start),
      end: round(p.w.end),
      duration: round(p.w.duration),
      pieces: p.w.pieces,
      score: { value: Math.round(Math.max(0, Math.min(1, p.value)) * 100), reasons: p.reasons },
      scores: p.s.scores,
      ...(opts.about ? { about: opts.about } : {}),
    };
    return [opts.about ? withAnswer(clip, opts.about, rank) : clip];
  });
  const kept = opts.about
    ? existing.map((c) => (answered.has(c) ? withAnswer(c, opts.about!, answered.get(c)!) : c))
    : existing;
  return [...kept, ...fresh];
}
