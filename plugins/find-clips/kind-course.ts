/**
 * Kinds of passage told by the course of the conversation rather than by one sentence's words: the
 * guest's origin story (the answer to "how did you start"), the closing turn that says goodbye,
 * and the opening welcome. Each reads who speaks when and where in the recording; kinds.ts calls
 * them after marking the kinds a sentence's own signals tell.
 */
import { facts, type Facts } from "./features.js";
import { signals, speakerOf } from "./kind-signals.js";
import type { Sentence } from "./text.js";

/** A host asking how a guest began: "how did you get into…", "how did you start", "was it always the plan". */
const ORIGIN = new RegExp(
  `\\b(${[
    "how did (you|she|he|they)( all)?( actually| first)? (start|begin|get (into|started)|become|end up|come to)",
    "always the plan",
    "childhood dream",
  ].join("|")})\\b`,
  "i",
);
/** The longest answer to such a question that is read as the guest's own story. */
const ORIGIN_REACH = 90;

/**
 * The guest's origin story: the answer to a host asking how the guest began is their biography told
 * as a story (a first job, a school trip, a course in a church hall), rich in ages and figures and
 * seldom a moment. It runs from the question to the asker's next turn (a short reaction aside), at
 * most ORIGIN_REACH seconds.
 */
export function markOrigins(sentences: Sentence[]): void {
  sentences.forEach((q, i) => {
    const f = facts(q);
    if (!f.question || f.show || !ORIGIN.test(q.text)) return;
    for (let j = i + 1; j < sentences.length; j++) {
      const s = sentences[j]!;
      const g = facts(s);
      if (s.start - q.start > ORIGIN_REACH) break;
      // The asker's next turn moves on, unless it is one short reaction ("No monsters on the trip.").
      if (speakerOf(s) === speakerOf(q) && j > i + 1 && speakerOf(sentences[j - 1]!) !== speakerOf(q)) {
        const next = sentences[j + 1];
        const alone = !next || speakerOf(next) !== speakerOf(q);
        if (g.question ? !ORIGIN.test(s.text) : !(alone && g.words <= 6)) break;
      }
      g.show ??= "biography";
    }
  });
}

/** How a host closes: thanks to the guests or listeners, what is on next, goodbye. */
const CLOSING = new RegExp(
  `\\b(${[
    "that's all",
    "that is all",
    "thank you (to|for|all|both|so much|everyone|everybody)",
    "thanks (to|for|everyone|everybody|both|all)",
    "thank you,? \\w+,? (and|thank you)",
    "next (week|time|month)",
    "until next",
    "good ?night",
    "goodbye",
    "see you",
    "take care",
    "before we go",
    "before we finish",
  ].join("|")})\\b`,
);

/**
 * The closing: the last turn of whoever closes a conversation, when it lies in the last sixth of
 * the recording and says goodbye ("Thank you, Isla, thank you, Jean", "Next week…", "Good
 * night"). Its figures (the audience vote, the calls waiting, next week's guests) are the show's,
 * not a moment. A solo talk is one turn, so there only the sentences from the goodbye on are.
 */
export function markClosing(sentences: Sentence[], duration: number): void {
  const late = duration * (5 / 6);
  const last = sentences.at(-1);
  if (!last) return;
  const who = speakerOf(last);
  let from = sentences.length - 1;
  while (from > 0 && speakerOf(sentences[from - 1]!) === who && sentences[from - 1]!.start >= late) from--;
  const low = (s: Sentence) => ` ${s.text.toLowerCase().replace(/[’‘]/g, "'")} `;
  const cue = sentences.findIndex((s, i) => i >= from && s.start >= late && CLOSING.test(low(s)));
  if (cue < 0) return;
  const solo = sentences.every((s) => speakerOf(s) === who);
  for (const s of sentences.slice(solo ? cue : from)) facts(s).show ??= "sign-off";
}
/**
 * The opening: from a greeting in the first tenth of the recording, the greeter's sentences about
 * the occasion (the room, the show, the audience, its records) are the welcome, however many
 * figures they hold. It ends at the first sentence that is about something else.
 */
export function markOpening(sentences: Sentence[], duration: number): void {
  const early = Math.min(duration * 0.25, Math.max(60, duration * 0.1));
  const start = sentences.findIndex(
    (s) => s.start <= early && (facts(s).show === "greeting" || /\b(welcome|good morning|hello)\b/i.test(s.text)),
  );
  if (start < 0) return;
  const who = speakerOf(sentences[start]!);
  // A host who greets and then hands over: the whole first turn (the question of the night, who
  // the guests are) is the welcome, up to the question that hands over. A solo talk has no hand-over.
  let end = start;
  while (end + 1 < sentences.length && speakerOf(sentences[end + 1]!) === who) end++;
  if (end + 1 < sentences.length && sentences[end]!.start <= early * 1.5) {
    while (end > start && facts(sentences[end]!).question) end--;
    for (const s of sentences.slice(start, end + 1)) facts(s).show ??= "introduction";
    return;
  }
  // Sentences between two about the occasion ("I'm Owen.") are the welcome too; two in a row that
  // are not end it, unmarked.
  let pending: Facts[] = [];
  for (let i = start; i < sentences.length && sentences[i]!.start <= early * 1.5; i++) {
    const s = sentences[i]!;
    const f = facts(s);
    if (speakerOf(s) !== who) break;
    if (f.show === "greeting" || f.show === "introduction") continue;
    // A question to a guest, or any other kind of passage, starts the conversation proper.
    if (f.show || f.question) break;
    const onOccasion = signals(s).occasion > 0 || ((f.numbers > 0 || f.superlative) && pending.length === 0);
    if (!onOccasion) {
      pending.push(f);
      if (pending.length >= 2) break;
      continue;
    }
    for (const p of [...pending, f]) p.show = "introduction";
    pending = [];
  }
}
