/**
 * Clean captions: a listed word (config/words/profanity.txt, or render.censor_words) is masked in
 * the captions ("f***"), and with `bleep` its span in the audio is muted under a 1 kHz tone.
 *
 * Matching is on whole words only: each run of letters and digits in a caption word is compared
 * with the list, case and accents ignored, so punctuation around a word never hides it and a word
 * that merely contains a listed one ("Scunthorpe", "class") is never touched. An entry ending in
 * `*` matches the words it begins. The list is read once per file and kept. Only words heard with
 * confidence are masked (confidence.ts), unless the operator asks for every listed word.
 */
import { readFileSync } from "node:fs";
import { heardSurely } from "./confidence.js";
import { findConfigFile } from "./styles.js";

export type CensorMode = "off" | "mask" | "bleep";
export const CENSOR_MODES: CensorMode[] = ["off", "mask", "bleep"];

export interface WordList {
  exact: Set<string>;
  prefixes: string[];
}

/** The most entries a list may hold: a list is read into memory and scanned per word. */
const MAX_ENTRIES = 20_000;

/** Parses the list format (see config/words/profanity.txt): one entry a line, `#` comments, `*` suffix. */
export function parseWordList(text: string, where = "word list"): WordList {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*/, "").trim();
    if (!line) continue;
    const star = line.endsWith("*");
    const word = fold(star ? line.slice(0, -1) : line);
    if (!/^[\p{L}\p{N}]+$/u.test(word))
      throw new Error(`${where}: "${line}" is not one word (letters and digits, optionally ending in *)`);
    if (star) prefixes.push(word);
    else exact.add(word);
    if (exact.size + prefixes.length > MAX_ENTRIES) throw new Error(`${where}: more than ${MAX_ENTRIES} entries`);
  }
  return { exact, prefixes };
}

const cache = new Map<string, WordList>();

/** The list at `file` (render.censor_words), else config/words/profanity.txt; read once. */
export function loadWordList(file?: string): WordList {
  const where = file || findConfigFile("words/profanity.txt");
  let list = cache.get(where);
  if (!list) {
    list = parseWordList(readFileSync(where, "utf8"), where);
    cache.set(where, list);
  }
  return list;
}

/** Lower case without accents, so "Fück" and "FUCK" meet the list's "fuck". */
function fold(s: string): string {
  return s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
}

export function isListed(word: string, list: WordList): boolean {
  const w = fold(word);
  return list.exact.has(w) || list.prefixes.some((p) => w.startsWith(p));
}

// A run of letters and digits, apostrophes allowed inside ("fuckin'" stops before the last one).
const PART = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

/** The text with each listed word's letters after the first turned into asterisks ("F***,"). */
export function maskText(text: string, list: WordList): { text: string; masked: boolean } {
  let masked = false;
  const hide = (w: string) => {
    masked = true;
    const chars = [...w];
    return (
      chars[0] +
      chars
        .slice(1)
        .map((c) => (/['’]/.test(c) ? c : "*"))
        .join("")
    );
  };
  const out = text.replace(PART, (part) => {
    // "shit's": the word before the apostrophe is masked and the "'s" kept; else the whole.
    const head = part.split(/['’]/)[0]!;
    if (head !== part && isListed(head, list)) return hide(head) + part.slice(head.length);
    return isListed(part.replace(/['’]/g, ""), list) ? hide(part) : part;
  });
  return { text: out, masked };
}

/**
 * Words with listed ones masked; `listed` holds the indices of the words that were. A listed word
 * the engine heard below `minConfidence` is left as it is (more likely a misheard ordinary word
 * than a swear); `lowConfidence: true` masks it all the same (config render.censor_low_confidence).
 */
export function censorWords<T extends { text: string; confidence?: number }>(
  words: T[],
  list: WordList,
  opts: { lowConfidence?: boolean; minConfidence?: number } = {},
): { words: T[]; listed: number[] } {
  const listed: number[] = [];
  const out = words.map((w, i) => {
    if (!opts.lowConfidence && !heardSurely(w, opts.minConfidence)) return w;
    const m = maskText(w.text, list);
    if (!m.masked) return w;
    listed.push(i);
    return { ...w, text: m.text };
  });
  return { words: out, listed };
}

export interface Span {
  start: number;
  end: number;
}

/**
 * The stretches to bleep: each listed word's time, a little wider each side (a recogniser's word
 * edges are often a few tens of milliseconds late or early), clamped to the clip and merged.
 */
export function bleepSpans(
  words: Array<{ start: number; end: number }>,
  listed: number[],
  total: number,
  pad = 0.06,
): Span[] {
  const spans = listed
    .map((i) => words[i]!)
    .map((w) => ({ start: Math.max(0, w.start - pad), end: Math.min(total, w.end + pad) }))
    .filter((s) => s.end > s.start)
    .sort((a, b) => a.start - b.start);
  const merged: Span[] = [];
  for (const s of spans) {
    const last = merged.at(-1);
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
  }
  return merged;
}

/**
 * An ffmpeg filter that mutes `[in]` over the spans and lays a 1 kHz sine (−12 dBFS) there, into
 * `[out]`; 48 kHz stereo float in and out, as clip-graph's audio chain makes it. Audio frames are
 * cut to 10 ms first, since `enable` switches a whole frame at a time.
 */
export function bleepFilter(spans: Span[], inLabel: string, outLabel: string): string {
  if (!spans.length) return `[${inLabel}]anull[${outLabel}]`;
  const on = spans.map((s) => `between(t,${s.start.toFixed(3)},${s.end.toFixed(3)})`).join("+");
  return (
    `[${inLabel}]asetnsamples=n=480:p=0,volume=volume=0:enable='${on}'[${outLabel}m];` +
    "sine=frequency=1000:sample_rate=48000,asetnsamples=n=480:p=0," +
    `volume=volume=0.25,volume=volume=0:enable='not(${on})',` +
    `aformat=sample_fmts=fltp:channel_layouts=stereo[${outLabel}t];` +
    `[${outLabel}m][${outLabel}t]amix=inputs=2:duration=first:normalize=0[${outLabel}]`
  );
}
