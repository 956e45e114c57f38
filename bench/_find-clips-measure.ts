/**
 * The labelled set and the measures of bench/find-clips, kept apart from the runner so unit tests
 * can use them. Every rule is about time spans, so any engine's clips can be scored.
 *
 * Matching rules (all at the top 5):
 * - A clip **finds** a moment when it covers at least half of the moment and is at most twice the
 *   moment's length (a 150 s clip around a 50 s moment does not count: it would need cutting again).
 * - **Hit rate**: the share of the episode's moments that some top-5 clip finds.
 * - **Precision@5**: the top-5 clips that find some moment, over 5 (so 3 moments cap it at 0.6).
 * - **Decoys@5**: the share of the top-5 clips that sit mostly in a decoy: they overlap it by at
 *   least half of the decoy's or of the clip's length, and find no moment.
 * - **Boundaries**: the share of the top-5 clips whose first spoken word begins a script sentence
 *   and whose last spoken word ends one (a word is in a clip when its middle is), so padding around
 *   the words does not matter and unpunctuated transcripts are judged by the script's sentences.
 * - **Brief accuracy**: the share of briefs whose answer (the first clip the search returns for it)
 *   finds the brief's moment.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Transcript } from "../plugins/find-clips/text.js";

export interface Span {
  start: number;
  end: number;
}
export interface Brief {
  /** Index into `labels`. */
  label: number;
  about: string;
}
export interface Labelled extends Transcript {
  name: string;
  title?: string;
  duration: number;
  labels: Span[];
  decoys?: Span[];
  sponsor?: Span[];
  sponsor_words?: string[];
  briefs?: Brief[];
  /** The script's sentences as time spans (first word's start, last word's end). */
  sentences?: Span[];
  /** The episode's shape: solo, interview, panel, debate, storytelling or call-in. */
  format?: string;
  /** `tune`: a scorer may be tuned on it; `heldout`: kept for judging, read only as an aggregate. */
  split?: "tune" | "heldout";
}

export const TOP = 5;
export const overlap = (a: Span, b: Span) => Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
const len = (s: Span) => s.end - s.start;

/** Works from the sources (bench/) and from the build (dist/bench/). */
export function fixturesDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = path.dirname(dir)) {
    const candidate = path.join(dir, "test", "fixtures", "labelled");
    try {
      if (readdirSync(candidate).some((f) => f.endsWith(".json"))) return candidate;
    } catch {}
  }
  throw new Error("test/fixtures/labelled not found");
}

export function loadLabelled(dir = fixturesDir()): Labelled[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => ({ name: path.basename(f, ".json"), ...JSON.parse(readFileSync(path.join(dir, f), "utf8")) }));
}

/** The matching rule: covers half the moment, and is not more than twice as long. */
export const finds = (clip: Span, moment: Span) =>
  overlap(clip, moment) >= 0.5 * len(moment) && len(clip) <= 2 * len(moment);

export const inDecoy = (clip: Span, decoys: Span[], labels: Span[]) =>
  !labels.some((l) => finds(clip, l)) && decoys.some((d) => overlap(clip, d) >= 0.5 * Math.min(len(d), len(clip)));

/** First and last words whose middle lies in the clip begin and end script sentences. */
export function onBoundaries(clip: Span, t: Pick<Labelled, "words" | "sentences">): boolean {
  const inside = t.words.filter((w) => (w.start + w.end) / 2 >= clip.start && (w.start + w.end) / 2 <= clip.end);
  if (!inside.length || !t.sentences?.length) return false;
  const first = inside[0]!.start;
  const last = inside[inside.length - 1]!.end;
  return (
    t.sentences.some((s) => Math.abs(s.start - first) < 1e-6) && t.sentences.some((s) => Math.abs(s.end - last) < 1e-6)
  );
}

export interface Score {
  labels: number;
  hits: number;
  clips: number;
  good: number;
  /** The most top-5 clips that could be good here: min(5, labels). */
  bestGood: number;
}

/** Hits and good clips among the top five, by the matching rule above. */
export function scoreClips(clips: Span[], labels: Span[]): Score {
  const top = clips.slice(0, TOP);
  const hits = labels.filter((l) => top.some((c) => finds(c, l))).length;
  const good = top.filter((c) => labels.some((l) => finds(c, l))).length;
  return { labels: labels.length, hits, clips: top.length, good, bestGood: Math.min(TOP, labels.length) };
}

export function total(scores: Score[]): Score {
  const zero = { labels: 0, hits: 0, clips: 0, good: 0, bestGood: 0 };
  return scores.reduce(
    (a, s) => ({
      labels: a.labels + s.labels,
      hits: a.hits + s.hits,
      clips: a.clips + s.clips,
      good: a.good + s.good,
      bestGood: a.bestGood + s.bestGood,
    }),
    zero,
  );
}

/** The five measures for one episode (null where the episode has nothing to measure). */
export interface Measures {
  hit: number;
  precision: number;
  decoys: number;
  boundaries: number;
  briefApi: number | null;
  briefFresh: number | null;
}

export function measureTop(clips: Span[], t: Labelled): Pick<Measures, "hit" | "precision" | "decoys" | "boundaries"> {
  const top = clips.slice(0, TOP);
  const s = scoreClips(top, t.labels);
  const n = Math.max(1, top.length);
  return {
    hit: s.labels ? s.hits / s.labels : 0,
    precision: s.good / TOP,
    decoys: top.filter((c) => inDecoy(c, t.decoys ?? [], t.labels)).length / n,
    boundaries: top.filter((c) => onBoundaries(c, t)).length / n,
  };
}

/** Share of briefs whose answer finds its moment; answers[i] is brief i's first clip (or none). */
export function briefAccuracy(t: Labelled, answers: Array<Span | undefined>): number | null {
  const briefs = t.briefs ?? [];
  if (!briefs.length) return null;
  return (
    briefs.filter((b, i) => answers[i] && t.labels[b.label] && finds(answers[i]!, t.labels[b.label]!)).length /
    briefs.length
  );
}

export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), a | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Non-overlapping random clips with the given lengths, placed uniformly in the episode. */
export function randomClips(lengths: number[], duration: number, rand: () => number): Span[] {
  const out: Span[] = [];
  for (const l of lengths) {
    for (let tries = 0; tries < 50; tries++) {
      const start = rand() * Math.max(0, duration - l);
      const c = { start, end: start + l };
      if (!out.some((o) => overlap(o, c) > 0)) {
        out.push(c);
        break;
      }
    }
  }
  return out;
}

/**
 * Chance level: the measures of random clips with the engine's own count and lengths (its top 5,
 * and each brief answer's length), averaged over `draws` seeded draws.
 */
export function chance(
  t: Labelled,
  topLengths: number[],
  briefLengths: Array<number | undefined>,
  draws = 200,
): Measures {
  const rand = prng(t.words.length * 7919 + draws);
  const sum = { hit: 0, precision: 0, decoys: 0, boundaries: 0, brief: 0 };
  for (let d = 0; d < draws; d++) {
    const m = measureTop(randomClips(topLengths, t.duration, rand), t);
    sum.hit += m.hit;
    sum.precision += m.precision;
    sum.decoys += m.decoys;
    sum.boundaries += m.boundaries;
    const answers = briefLengths.map((l) => (l ? randomClips([l], t.duration, rand)[0] : undefined));
    sum.brief += briefAccuracy(t, answers) ?? 0;
  }
  const b = t.briefs?.length ? sum.brief / draws : null;
  return {
    hit: sum.hit / draws,
    precision: sum.precision / draws,
    decoys: sum.decoys / draws,
    boundaries: sum.boundaries / draws,
    briefApi: b,
    briefFresh: b,
  };
}

/** The mean of each measure over the episodes that have it. */
export function average(rows: Measures[]): Measures {
  const mean = (k: keyof Measures) => {
    const v = rows.map((r) => r[k]).filter((x): x is number => x !== null);
    return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
  };
  return {
    hit: mean("hit")!,
    precision: mean("precision")!,
    decoys: mean("decoys")!,
    boundaries: mean("boundaries")!,
    briefApi: mean("briefApi"),
    briefFresh: mean("briefFresh"),
  };
}

/** The tuning half and the held-out half of the set (episodes without a split count as tuning). */
export function splitSet<T extends Pick<Labelled, "split">>(set: T[]): { tune: T[]; heldout: T[] } {
  return { tune: set.filter((t) => t.split !== "heldout"), heldout: set.filter((t) => t.split === "heldout") };
}

/**
 * A long recording for the cost measure: the episodes' words laid end to end, each episode after
 * the last with a two-second pause, until `minutes` are reached (speakers kept apart per episode).
 */
export function longRecording(set: Labelled[], minutes: number): Transcript & { duration: number } {
  const words: Transcript["words"] = [];
  let offset = 0;
  for (let k = 0; offset < minutes * 60 && set.length; k++) {
    const t = set[k % set.length]!;
    for (const w of t.words)
      words.push({ ...w, start: w.start + offset, end: w.end + offset, speaker: `${k}-${w.speaker ?? ""}` });
    offset += t.duration + 2;
  }
  return { words, duration: offset };
}
