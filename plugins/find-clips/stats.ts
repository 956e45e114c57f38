/**
 * Episode-wide statistics a window is scored against: term rarity, pace, loudness, the pause that
 * ends a sentence and where topics change. Read once per episode (marking passage kinds and
 * responses on the way), so kept apart from the per-window scoring in score.ts and subscores.ts.
 */
import { facts } from "./features.js";
import { markPassageKinds } from "./kinds.js";
import { markResponses } from "./structure.js";
import { contentStems as nlpStems } from "./nlp.js";
import { segmentTopics, type Topics } from "./segment.js";
import type { Sentence } from "./text.js";

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
  /**
   * Unpunctuated transcripts: the median pause between units. A pause at least this long is read as
   * a sentence's end; a shorter one may be a comma (pause-split units cut sentences at commas too).
   */
  sentencePause: number;
  duration: number;
  /** The episode's sentences and where its topics change (TextTiling). */
  sentences: Sentence[];
  topics: Topics;
}

/** Stemmed content words (Porter2, stop words removed); briefs and focus compare these. */
export const contentStems = nlpStems;

/** Who says a sentence: turns, exchanges and monologues are read from it. */
export const speakerOf = (s: Sentence) => s.words[0]?.speaker ?? null;
/** A speaker announcing the next move of a talk. */
const SIGNPOST = new RegExp(
  `^\\W*(now,? |so,? |right,? |okay,? )?(${[
    "let me (tell|talk|finish|start|turn)",
    "i want to (talk|tell|turn|finish|leave)",
    "let's (talk|turn|move)",
    "moving on",
    "which brings me",
    "next,",
    "my (first|second|third|last) point",
  ].join("|")})`,
  "i",
);

export function buildStats(
  sentences: Sentence[],
  duration: number,
  punctuated: boolean,
  loudness?: number[],
): EpisodeStats {
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
  markPassageKinds(sentences, duration);
  markResponses(sentences);
  const turns = sentences.map((s, i) => i > 0 && speakerOf(s) !== speakerOf(sentences[i - 1]!));
  // Solo talks have no questions to mark their topics: the speaker's signposts and connectives do.
  const signpost = sentences.map((s) => SIGNPOST.test(s.text));
  // Joined: a same-speaker connective ("So…"), an answer to the question just asked, a rebuttal ("But…").
  const joined = sentences.map((s, i) => {
    if (i === 0) return false;
    const d = facts(s).dangling ?? "";
    // A set-up ("And then comes the strangest part.") and what it announces are one thought.
    if (!turns[i]) return ["so", "and", "because", "which"].includes(d) || facts(sentences[i - 1]!).setup;
    return facts(sentences[i - 1]!).question || d === "but";
  });
  const topics = segmentTopics(
    sentences.map((s) => s.text),
    turns,
    { signpost, joined },
  );
  const pauses = sentences
    .slice(1)
    .map((s, i) => s.start - sentences[i]!.end)
    .filter((g) => g >= 0.5)
    .sort((a, b) => a - b);
  const sentencePause = Math.max(0.5, pauses.length ? pauses[Math.floor(pauses.length / 2)]! : 0.5);
  return {
    idf,
    medianRate,
    loudness,
    loudnessMean,
    punctuated,
    sentencePause,
    duration,
    sentences,
    topics,
  };
}
