/**
 * Kinds of passage that are not moments, told by what the passage does rather than by its stock
 * phrases alone: a speaker's own career (first person, spans of years, jobs), housekeeping
 * (clock times, days, rooms, tickets, prices of admission), a sponsor read (a brand with a web
 * address, or an offer made to "you": free months, a code, "mention us") and an opening that talks
 * about the occasion itself ("this room", "our two hundredth episode"). Such sentences are rich in
 * numbers, names and superlatives, which is why a scorer that counts those picks them; here they
 * are marked (Facts.show) so score.ts treats them as show business and titles never use them.
 * A kind is read over a neighbourhood of the same speaker's sentences, so one clock time inside a
 * story ("he walked out at eight o'clock on a Friday") does not make the story housekeeping.
 * What a sentence holds of each kind is read in kind-signals.ts; the kinds told by the course of
 * the conversation (the welcome, the origin story, the sign-off) are marked in kind-course.ts.
 */
import { facts } from "./features.js";
import { markClosing, markOpening, markOrigins } from "./kind-course.js";
import { signals, speakerOf, type KindSignals } from "./kind-signals.js";
import { isStopWord } from "./nlp.js";
import type { Sentence } from "./text.js";

export { readSignals, signals, type KindSignals } from "./kind-signals.js";

/**
 * Marks the sentences of biographies, housekeeping, sponsor reads and openings about the occasion
 * (Facts.show), reading each sentence with its same-speaker neighbours.
 */
export function markPassageKinds(sentences: Sentence[], duration: number): void {
  const sig = sentences.map(signals);
  const near = (i: number, k: keyof KindSignals, reach = 1) => {
    let sum = 0;
    for (let j = Math.max(0, i - reach); j <= Math.min(sentences.length - 1, i + reach); j++)
      if (speakerOf(sentences[j]!) === speakerOf(sentences[i]!)) sum += sig[j]![k];
    return sum;
  };
  sentences.forEach((s, i) => {
    const f = facts(s);
    if (f.show) return;
    const g = sig[i]!;
    // A sponsor read: who pays and where to find them, or an offer with a web address.
    if (g.sponsor >= 2 && (g.offer > 0 || g.sponsor >= 4 || f.names > 0)) f.show = "sponsor read";
    else if (g.offer >= 2 && near(i, "sponsor") >= 2) f.show = "sponsor read";
    else if (g.career >= 2 || (g.career >= 1 && near(i, "career") >= 3)) f.show = "biography";
    else if (g.schedule >= 2 && near(i, "schedule") >= 4) f.show = "logistics";
    else if (g.schedule >= 1 && near(i, "schedule", 1) >= 5) f.show = "logistics";
  });
  markSponsorReads(sentences);
  markOrigins(sentences);
  markOpening(sentences, duration);
  markClosing(sentences, duration);
}

/**
 * A sponsor read runs over several sentences, and only some carry its cues; without punctuation it
 * is cut into phrases. Sentences that share a rare word (said in at most five sentences: the brand)
 * with a marked sponsor sentence, by the same speaker within three sentences, are the read too.
 */
export function markSponsorReads(sentences: Sentence[]): void {
  const words = sentences.map(
    (s) =>
      new Set(
        facts(s)
          .a.tokens.filter((t) => /^\p{L}{4,}$/u.test(t.normal) && !isStopWord(t.normal))
          .map((t) => t.normal),
      ),
  );
  const df = new Map<string, number>();
  for (const w of words) for (const t of w) df.set(t, (df.get(t) ?? 0) + 1);
  const brands = new Set<string>();
  const cued = sentences.flatMap((s, i) => (facts(s).show === "sponsor read" ? [i] : []));
  for (const i of cued) for (const t of words[i]!) if ((df.get(t) ?? 0) <= 5) brands.add(t);
  sentences.forEach((s, i) => {
    const f = facts(s);
    const near = cued.some((c) => Math.abs(c - i) <= 3 && speakerOf(sentences[c]!) === speakerOf(s));
    if (!f.show && near && ([...words[i]!].some((t) => brands.has(t)) || signals(s).offer >= 2))
      f.show = "sponsor read";
  });
}
