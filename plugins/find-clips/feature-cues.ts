/**
 * The cue sets features.ts reads a sentence with: discourse markers, the fixed phrases of show
 * business, set-ups, promises, hedges and drift, and the openings that lean on earlier talk. They
 * are word lists where no library helps, kept apart so the reader in features.ts stays short and
 * the lists can be read (and extended) on their own.
 */

/** Discourse markers of contrast and cause: POS tags cannot tell "but" from "and". */
export const CONTRAST = new Set([
  "but",
  "however",
  "instead",
  "actually",
  "although",
  "though",
  "yet",
  "whereas",
  "unless",
  "except",
]);
export const CAUSAL = new Set(["because", "therefore", "why", "means", "so", "since", "thus", "causes", "leads"]);
/** Quantifiers that turn a statement into a general claim ("most people think…", "nobody tells you"). */
export const SWEEPING = new Set([
  "most",
  "every",
  "everyone",
  "everybody",
  "nobody",
  "never",
  "always",
  "all",
  "nothing",
  "everything",
  "only",
]);
/** Comparative forms before "than": "more", "less", "fewer", "better", "worse", or an "-er" adjective. */
export const COMPARATIVE = /^(more|less|fewer|better|worse|rather|[a-z]{3,}er)$/;
export const SUPERLATIVE_IRREGULAR = new Set(["best", "worst", "most", "biggest"]);

/**
 * Show business by kind, as phrases matched on the lower-cased words. These are conventions of the
 * genre (no model tags a sponsor read), kept short and documented in docs/clips.md.
 */
export const SHOW_CUES: Record<string, string[]> = {
  "sponsor read": [
    "brought to you by",
    "sponsor",
    "sponsored",
    "promo code",
    "use code",
    "code at checkout",
    "dot com",
    "dot io",
    "dot org",
    "percent off",
    "free trial",
    "link in the",
  ],
  greeting: ["welcome to", "welcome back", "hello everyone", "hi everyone", "good morning everyone"],
  thanks: ["thanks for coming", "thanks for having", "thank you for", "thanks so much for", "thanks for joining"],
  introduction: [
    "my guest",
    "i'm your host",
    "joining me",
    "joined by",
    "today we're talking",
    "today is",
    "today we talk",
  ],
  logistics: [
    "before we start",
    "quick break",
    "short break",
    "we're back",
    "we are back",
    "show notes",
    "our website",
    "newsletter",
    "giveaway",
    "subscribe",
    "where can people find",
    "find you online",
    // A call-in host moving the show along: the call that follows is the moment, not the hand-over.
    "back to the phones",
    "on the line",
    "next caller",
    "time for one more",
    "lines are open",
  ],
  "sign-off": [
    "that's all for",
    "that is all for",
    "see you next",
    "thanks for listening",
    "until next time",
    "take care everyone",
  ],
};
/** Lines that set up what follows rather than say it ("Here's the thing."): never a clip's last. */
export const SETUP_CUES = [
  "here's the thing",
  "here is the thing",
  "here's what",
  "let me tell you",
  "the thing is",
  "the question is",
  "one more thing",
  "i'll tell you",
  "guess what",
  "here's why",
  "here's how",
  "listen to this",
];
/** A short line that ends on the part it announces: "the strangest part", "the best bit", "the real thing". */
export const ANNOUNCED =
  /\b(\w{3,}est|best|worst|most \w+|next|funny|strange|weird|scary|interesting|important|real) (part|bit|thing)\W*$/i;
export const PROMISE_CUES = [
  "here's how",
  "here's why",
  "i'll show you",
  "the way to",
  "how to",
  "the trick is",
  "the secret",
  "the key is",
];
/**
 * Hedges and drift markers: rambling talk circles ("I suppose", "it's all a bit of…", "anyway")
 * where a point is made plainly. No tagger marks hedging, so these few phrases stand in.
 */
export const HEDGES = [
  "i suppose",
  "i guess",
  "i think",
  "probably",
  "maybe",
  "kind of",
  "sort of",
  "a bit",
  "or something",
  "anyway",
  "in general",
  "all sorts",
  "whatever",
  "you know",
];
/**
 * The stronger signs of circling: drift ("anyway", "or something", "all sorts"), a tag question that
 * asks the listener to agree with nothing ("isn't it", "aren't they"), "of course" and "honestly"
 * as padding. Weak hedges ("I think", "maybe") are common in sharp talk too and weigh less.
 */
export const DRIFT = [
  "i suppose",
  "or something",
  "anyway",
  "all sorts",
  "whatever",
  "in general",
  "isn't it",
  "aren't they",
  "doesn't it",
  "don't they",
  "wasn't it",
  "isn't there",
  "of course",
  "honestly",
];
/** Adjectives that, after "a", make the noun vague ("a funny word", "a big subject"). */
export const VAGUE_ADJ = new Set(["big", "funny", "strange", "whole", "huge", "interesting", "weird", "odd", "lovely"]);
/** Nouns that name nothing in particular after "a" and an adjective: "a big thing", "a whole topic". */
export const VAGUE_NOUNS = new Set(["thing", "things", "stuff", "topic", "world"]);
/** Openings that point back at talk the clip does not hold. */
export const BACK_REFERENCES = [
  "as i said",
  "like i said",
  "as we said",
  "going back to",
  "to your point",
  "that's right",
  "exactly",
];
export const CONNECTORS = new Set(["and", "so", "but", "because", "or", "then", "also", "which", "plus", "anyway"]);
export const DANGLING_PRONOUNS = new Set([
  "it",
  "that",
  "this",
  "these",
  "those",
  "they",
  "he",
  "she",
  "them",
  "there",
]);
export const BE = new Set(["is", "'s", "are", "'re", "was", "were", "be", "been"]);
