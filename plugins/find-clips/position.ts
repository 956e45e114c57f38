/**
 * Where in the episode a brief places its moment, when it says so: "told at the end of the show",
 * "early in the episode", "the story that opened the show", "halfway through". People describe a
 * moment they heard by when it came as often as by what was said, and those words name no topic
 * (the brief's generic words, "end" and "start" among them, earn nothing by meaning either).
 *
 * Only phrases that place a moment in the recording count: "at the end of the war" names a topic,
 * so "the end" counts when it is the show's own (of the show, episode, talk…) or stands alone.
 */
export type Place = "start" | "middle" | "end";

const RECORDING =
  "(?:show|episode|programme|program|podcast|talk|sermon|lecture|keynote|conversation|interview|call|" +
  "recording|panel|debate|session|broadcast|hour)";
const THE = "(?:the|this|that|today's|tonight's)";
/** "the end" followed by the recording it ends, or by nothing that makes it another thing's end. */
const OWN = `(?: of ${THE} ${RECORDING}\\b|(?! of\\b))`;

const PLACES: Array<[Place, RegExp]> = [
  ["end", new RegExp(`\\b(?:at|near|towards?|by|around|right at) the (?:very )?(?:end|close|finish)${OWN}`, "i")],
  ["end", new RegExp(`\\b(?:late|later) (?:in|on) ${THE} ${RECORDING}\\b`, "i")],
  [
    "end",
    new RegExp(`\\b(?:to (?:close|end|finish|wrap up)|closed|ended|finished|closing) ${THE} ${RECORDING}\\b`, "i"),
  ],
  [
    "end",
    new RegExp(
      `\\b(?:at the|in the|the show's|the episode's) (?:last|final|closing) (?:minutes?|part|stretch)\\b`,
      "i",
    ),
  ],
  ["start", new RegExp(`\\b(?:at|near|from) the (?:very )?(?:start|beginning|top|outset)${OWN}`, "i")],
  ["start", new RegExp(`\\b(?:early|earlier) (?:in|on) ${THE} ${RECORDING}\\b`, "i")],
  [
    "start",
    new RegExp(
      `\\b(?:to (?:open|start|begin|kick off)|opened|started|began|kicked off|opening) ${THE} ${RECORDING}\\b`,
      "i",
    ),
  ],
  ["start", new RegExp(`\\b(?:in the|the show's|the episode's) (?:first|opening) (?:minutes?|part|stretch)\\b`, "i")],
  [
    "middle",
    new RegExp(`\\b(?:in the (?:middle|midst) of ${THE} ${RECORDING}\\b|halfway through|midway through)`, "i"),
  ],
];

/** The part of the recording a brief places its moment in, if it places it at all. */
export function placeIn(about: string): Place | undefined {
  return PLACES.find(([, re]) => re.test(about))?.[0];
}

/**
 * How well a passage's place fits: 1 where the brief puts it, falling linearly to 0 at the far side
 * of the recording (`at` is the passage's middle as a share of the recording, 0–1).
 */
export function placeFit(place: Place, at: number): number {
  const x = Math.min(1, Math.max(0, at));
  if (place === "end") return x;
  if (place === "start") return 1 - x;
  return 1 - 2 * Math.abs(x - 0.5);
}
