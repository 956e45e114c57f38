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
 */
import { facts, type Facts } from "./features.js";
import { isStopWord } from "./nlp.js";
import type { Sentence } from "./text.js";

const TIME_UNITS = new Set(["year", "years", "month", "months", "decade", "decades"]);
const CAREER = new Set([
  "worked",
  "work",
  "taught",
  "teach",
  "studied",
  "trained",
  "served",
  "spent",
  "joined",
  "founded",
  "opened",
  "started",
  "ran",
  "run",
  "been",
  "degree",
  "degrees",
  "career",
  "job",
  "cooking",
  "teaching",
  "working",
  "writing",
  "running",
  "hired",
  "graduated",
  "qualified",
]);
const DAYS = new Set([
  "monday",
  "tuesday",
  "wednesday",
  "thursday",
  "friday",
  "saturday",
  "sunday",
  "tomorrow",
  "tonight",
  "weekend",
]);
/** Rooms, passes and arrangements of an event or a show: where and when, not what. */
const VENUE = new Set([
  "hall",
  "room",
  "rooms",
  "stand",
  "car",
  "parking",
  "exits",
  "exit",
  "entrance",
  "tickets",
  "ticket",
  "pass",
  "badges",
  "badge",
  "lunch",
  "coffee",
  "tea",
  "break",
  "session",
  "sessions",
  "breakout",
  "registration",
  "toilets",
  "cloakroom",
  "doors",
  "schedule",
  "menu",
  "notices",
  "notice",
  "reminder",
  "stream",
  "livestream",
  "website",
  "newsletter",
  "episode",
  "episodes",
  "subscribe",
  "warden",
]);
const CLOCK = /\b(half past|quarter (past|to)|o'clock|\d{1,2}(:\d\d)? ?(am|pm|a\.m\.|p\.m\.)|noon|midnight)\b/;
const NEXT =
  /\b(next (week|sunday|monday|tuesday|wednesday|thursday|friday|saturday|month|time|year)|this (afternoon|evening))\b/;
/** The ways a read says who pays for the show, however worded. */
const SUPPORT = new RegExp(
  `\\b(${[
    "brought to you by",
    "supported by",
    "made possible by",
    "courtesy of",
    "our friends at",
    "thanks to our",
    "sponsored by",
    "our sponsor",
    "partnered with",
    "in partnership with",
    "today's sponsor",
    "this episode is",
  ].join("|")})\\b`,
);
const WEB = /\b(dot (com|app|co|uk|io|org|net|ai|fm|tv|dev)|www|https?)\b|\w\.(com|app|io|org|net|co\.uk|ai|fm|tv)\b/;
/** An offer made to the listener: something free or off, a code, a first month, a sign-up. */
const OFFER = new RegExp(
  `\\b(${[
    "free",
    "percent off",
    "% off",
    "discount",
    "promo",
    "code",
    "sign up",
    "signs? up",
    "first (month|months|box|order|two|three)",
    "trial",
    "for nothing",
    "mention",
    "the word is",
    "type in",
    "use the",
    "go to",
    "head to",
    "head over",
    "visit",
    "check (them|it) out",
    "stand",
  ].join("|")})\\b`,
);
/** The occasion itself: the room, the show, the audience. */
const OCCASION = new RegExp(
  `\\b(${[
    "(the|our|this) (show|programme|podcast|debate|episode)",
    "this (room|hall|building|show|episode|podcast|summit|conference)",
    "this (chapel|church|stage|event|programme|morning's|session)",
    "our (show|episode|podcast)",
    "everyone",
    "everybody",
    "yourselves",
    "all of you",
    "welcome",
    "good (morning|evening|afternoon)",
  ].join("|")})\\b`,
);

/** An age a career began at: "at fifteen", "when I was nine". */
const AGE = new RegExp(
  `\\b(at|aged|when i was|i was) (${[
    "nine|ten|eleven|twelve|thirteen|fourteen|fifteen",
    "sixteen|seventeen|eighteen|nineteen|twenty",
  ].join("|")}|\\d\\d?)\\b`,
);

/** What a sentence holds of each kind: counts the neighbourhood rules below add up. */
export interface KindSignals {
  career: number;
  schedule: number;
  sponsor: number;
  offer: number;
  occasion: number;
}

const _signals = new WeakMap<Sentence, KindSignals>();
export function signals(s: Sentence): KindSignals {
  let v = _signals.get(s);
  if (!v) _signals.set(s, (v = readSignals(facts(s), s.text)));
  return v;
}

export function readSignals(f: Facts, text: string): KindSignals {
  const all = f.a.tokens;
  const toks = all.filter((t) => t.pos !== "PUNCT");
  const low = ` ${text
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/[^\p{L}\p{N}'%:. ]+/gu, " ")
    .replace(/\s+/g, " ")} `;
  const firstPerson = toks.some((t) => t.normal === "i" || t.normal === "my" || t.normal === "me");
  // A span of a life: "fourteen years", "for six years", "since 2009", "at fifteen".
  const spans =
    // "a ten-year-old linesman" is somebody's age, not a span: the hyphens say so.
    all.filter((t, i) => TIME_UNITS.has(t.normal) && all[i - 1]?.pos === "NUM" && all[i + 1]?.normal !== "-").length +
    toks.filter((t) => /^(19|20)\d\d$/.test(t.normal)).length +
    // An age a career began at: "at fifteen", "when I was nine".
    (AGE.test(low) ? 1 : 0);
  const careerWords = toks.filter((t) => CAREER.has(t.normal)).length + (/\bas an? \w+/.test(low) ? 1 : 0);
  const named = /\bmy name is\b|\bi'm your host\b/.test(low);
  // Strong: the speaker's own years at a job; weak: one of the two (a neighbour must add to it).
  const career =
    (firstPerson && spans > 0 && careerWords > 0 ? 2 : firstPerson && (spans > 0 || careerWords > 0) ? 1 : 0) +
    (named ? 2 : 0);
  const schedule =
    toks.filter((t) => DAYS.has(t.normal) || VENUE.has(t.normal)).length +
    (CLOCK.test(low) ? 2 : 0) +
    (NEXT.test(low) ? 1 : 0) +
    // Prices of admission: "tickets are eight pounds", "one pound twenty a cup".
    (/\b(pounds?|dollars?|euros?|quid|bucks)\b/.test(low) && /\b(tickets?|a cup|per person|entry|included)\b/.test(low)
      ? 1
      : 0);
  const web = WEB.test(low) || f.a.entities.some((e) => e === "URL" || e === "EMAIL");
  const offer = (low.match(new RegExp(OFFER.source, "g")) ?? []).length;
  const sponsor = (SUPPORT.test(low) ? 2 : 0) + (web ? 2 : 0) + (f.show === "sponsor read" ? 1 : 0);
  const occasion = (low.match(new RegExp(OCCASION.source, "g")) ?? []).length;
  return { career, schedule, sponsor, offer, occasion };
}

const speakerOf = (s: Sentence) => s.words[0]?.speaker ?? null;

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
function markOrigins(sentences: Sentence[]): void {
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
function markClosing(sentences: Sentence[], duration: number): void {
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
function markOpening(sentences: Sentence[], duration: number): void {
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
