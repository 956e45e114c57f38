/**
 * How sure the speech engine was of a word (`confidence`, 0–1, docs/transcription.md), and what is
 * built on it: a title or hook drawn from words the engine barely heard may say something nobody
 * said, and a "profanity" heard at 0.2 is more likely a misheard ordinary word than a swear.
 * A word without a confidence (an older transcript, a typed caption) counts as heard.
 */

/** Below this a word is not trusted for titles, the hook box or the censor. */
export const MIN_CONFIDENCE = 0.5;

export interface Heard {
  text: string;
  confidence?: number;
}

/** Lower case letters and digits only, so "Stung," in a caption meets "stung" in a title. */
export const normalWord = (s: string) =>
  s
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[’]/g, "'")
    .replace(/[^\p{L}\p{N}']/gu, "")
    .replace(/^'+|'+$/g, "");

/** True when the engine gave the word at least `min` (or gave no confidence at all). */
export const heardSurely = (w: Heard, min = MIN_CONFIDENCE) =>
  typeof w.confidence !== "number" || !Number.isFinite(w.confidence) || w.confidence >= min;

/**
 * The words of `text` that the engine heard below `min` in `words` (the passage the text was made
 * from), each with its best confidence there: a word said twice counts as heard if either time
 * was sure. Words of `text` not found in `words` are not judged.
 */
export function unsureWords(
  text: string,
  words: Heard[],
  min = MIN_CONFIDENCE,
): Array<{ word: string; confidence: number }> {
  const best = new Map<string, number>();
  for (const w of words) {
    const key = normalWord(w.text);
    if (!key) continue;
    const c = heardSurely(w, Number.POSITIVE_INFINITY) ? 1 : (w.confidence as number);
    best.set(key, Math.max(best.get(key) ?? 0, c));
  }
  const out: Array<{ word: string; confidence: number }> = [];
  for (const raw of text.split(/\s+/)) {
    const word = normalWord(raw);
    const c = best.get(word);
    if (word && c !== undefined && c < min && !out.some((o) => o.word === word)) out.push({ word, confidence: c });
  }
  return out;
}

/** "“arrow” 0.00, “our” 0.21": the unsure words for a reason a person reads. */
export const describeUnsure = (unsure: Array<{ word: string; confidence: number }>) =>
  unsure
    .slice(0, 3)
    .map((u) => `“${u.word}” ${u.confidence.toFixed(2)}`)
    .join(", ");

/**
 * Whether the hook title box is drawn (caption-burn, and the clip editor's preview the same way).
 * Asked for with `hook_title: true`, the box shows the clip's title, made by the clip finder from
 * the words the engine heard; when some of those words were heard below the bar, the title may say
 * what nobody said, so the box stays off and the render says why (issue 39: the clip's answer
 * carries it as `hook_title_dropped`, with the two ways on: `hook_title_anyway: true` draws the
 * title as heard, `hook_title: "…"` draws typed words). Typed words are always drawn.
 */
export interface HookDecision {
  /** The words in the box, or undefined for no box. */
  text?: string;
  /** Why a box asked for is not drawn. */
  off?: string;
  /** The title's words heard below the bar, when the box is off for them. */
  unsure?: Array<{ word: string; confidence: number }>;
}

export function decideHookTitle(
  option: boolean | string,
  title: string | undefined,
  words: Heard[],
  min = MIN_CONFIDENCE,
  anyway = false,
): HookDecision {
  if (typeof option === "string") return { text: option };
  if (option !== true || !title?.trim()) return {};
  const unsure = anyway ? [] : unsureWords(title, words, min);
  if (!unsure.length) return { text: title };
  return {
    off:
      `hook title box off: the title's words were heard with low confidence (${describeUnsure(unsure)}, ` +
      `below ${min}); set hook_title_anyway to draw the title as heard, or give hook_title your own words`,
    unsure,
  };
}
