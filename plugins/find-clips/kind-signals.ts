/**
 * What one sentence holds of each kind of passage that is not a moment (career, schedule, sponsor,
 * offer, occasion): the word sets and patterns, and the counts read from them. kinds.ts and
 * kind-course.ts add these up over a sentence's neighbourhood; reading them is kept apart from
 * that marking so each rule set stays short.
 */
import { facts, type Facts } from "./features.js";
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

/** Who says a sentence: kinds are read over the same speaker's neighbours. */
export const speakerOf = (s: Sentence) => s.words[0]?.speaker ?? null;
