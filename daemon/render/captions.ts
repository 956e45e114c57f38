/**
 * Transcript types and caption writers shared by transcribe and caption-burn.
 * Captions are built from word timings into cues: at most `maxLines` lines of at most `maxChars`
 * characters, at most `maxSeconds` long, broken at sentence ends and at pauses. Cue times are the
 * word times themselves, so cues never overlap and always come in order. Burned-in captions group
 * their words into shorter cues (toAssCues, at the end), which ass.ts lays out and animates.
 */

export interface TranscriptWord {
  text: string;
  /** Seconds from the start of the media. */
  start: number;
  end: number;
  /** 0–1; engines without a score report 1. */
  confidence: number;
  /** Who said it (S1, S2…), when the transcript tells speakers apart; see docs/transcription.md. */
  speaker?: string;
}

export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
  speaker: string;
  /** Half-open index range into `words`: [first, last + 1). */
  words: [number, number];
}

export interface Transcript {
  engine: string;
  model?: string;
  language: string;
  /** How the language was found with `language: auto`: engine report, text, or the model's only one. */
  language_source?: "engine" | "text" | "model";
  duration: number;
  words: TranscriptWord[];
  segments: TranscriptSegment[];
}

/** A word of burned captions, on the clip's timeline. */
export interface CaptionWord {
  text: string;
  start: number;
  end: number;
  /** Drawn in the accent colour (a number or a key phrase; daemon/render/emphasis.ts). */
  emphasis?: boolean;
}

export interface Cue {
  start: number;
  end: number;
  lines: string[];
  /** Half-open index range into the words given to toCues. */
  words: [number, number];
}

export interface CueOptions {
  /** Characters per line. Default 42. */
  maxChars?: number;
  /** Lines per cue. Default 2. */
  maxLines?: number;
  /** Longest cue in seconds. Default 7. */
  maxSeconds?: number;
  /** A silence between words at least this long (seconds) starts a new cue. Default 0.7. */
  pauseSeconds?: number;
}

const SENTENCE_END = /[.!?…]["')\]]?$/;

/**
 * Splits words into at most `maxLines` lines of at most `maxChars` characters, as balanced as
 * possible; a break after punctuation is a little better still. A single word longer than a line
 * stays whole (it is never cut inside), so a line may overflow only when nothing else fits. Used
 * for transcript cues (SRT, VTT) and for burned-in captions and hook titles (_ass.ts).
 */
export function breakLines(words: string[], maxChars: number, maxLines = 2): string[][] {
  const len = (ws: string[]) => ws.join(" ").length;
  if (words.length <= 1 || len(words) <= maxChars || maxLines <= 1) return [words];
  let best: string[][] | undefined;
  let bestCost = Infinity;
  for (let i = 1; i < words.length; i++) {
    const first = words.slice(0, i);
    const lines = [first, ...breakLines(words.slice(i), maxChars, maxLines - 1)];
    const lens = lines.map(len);
    const over = lens.reduce((a, l) => a + Math.max(0, l - maxChars), 0);
    // Overflow first, then the longest line (a break after punctuation counts as 4 characters
    // shorter), then a slight preference for a shorter top line.
    const cost =
      over * 1000 +
      (Math.max(...lens) - (/[,;:.!?]$/.test(first.at(-1)!) ? 4 : 0)) * 10 +
      (lens[0]! > lens[1]! ? 1 : 0);
    if (cost < bestCost) {
      bestCost = cost;
      best = lines;
    }
  }
  return best!;
}

/** Lays words out on at most `maxLines` lines of `maxChars`; null if they don't fit. */
export function layoutLines(texts: string[], maxChars: number, maxLines: number): string[] | null {
  const lines = breakLines(texts, maxChars, maxLines).map((l) => l.join(" "));
  return texts.length === 1 || lines.every((l) => l.length <= maxChars) ? lines : null;
}

/** Groups words into caption cues (see the module comment for the rules). */
export function toCues(words: TranscriptWord[], opts: CueOptions = {}): Cue[] {
  const maxChars = opts.maxChars ?? 42;
  const maxLines = opts.maxLines ?? 2;
  const maxSeconds = opts.maxSeconds ?? 7;
  const pause = opts.pauseSeconds ?? 0.7;
  const cues: Cue[] = [];
  let first = -1;
  let lines: string[] = [];
  const close = (endIndex: number) => {
    if (first < 0) return;
    const prevEnd = cues.length ? cues[cues.length - 1]!.end : 0;
    const start = Math.max(words[first]!.start, prevEnd);
    const end = Math.max(start, words[endIndex - 1]!.end);
    cues.push({ start, end, lines, words: [first, endIndex] });
    first = -1;
    lines = [];
  };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const text = w.text.trim();
    if (!text) continue;
    if (first >= 0) {
      const prev = words[i - 1]!;
      const texts = words
        .slice(first, i + 1)
        .map((x) => x.text.trim())
        .filter(Boolean);
      const laid = layoutLines(texts, maxChars, maxLines);
      if (w.start - prev.end >= pause || w.end - words[first]!.start > maxSeconds || !laid) {
        close(i);
      } else {
        lines = laid;
      }
    }
    if (first < 0) {
      first = i;
      lines = [text];
    }
    if (SENTENCE_END.test(text)) close(i + 1);
  }
  close(words.length);
  return cues;
}

function clock(seconds: number, sep: "," | "."): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${pad(h)}:${pad(m)}:${pad(s)}${sep}${pad(ms % 1000, 3)}`;
}

/** SubRip: 1-based indices, HH:MM:SS,mmm times. */
export function toSrt(words: TranscriptWord[], opts?: CueOptions): string {
  return toCues(words, opts)
    .map((c, i) => `${i + 1}\n${clock(c.start, ",")} --> ${clock(c.end, ",")}\n${c.lines.join("\n")}\n`)
    .join("\n");
}

const escapeVtt = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** WebVTT with HH:MM:SS.mmm times; text is escaped so `<`, `&` and `-->` can't break a cue. */
export function toVtt(words: TranscriptWord[], opts?: CueOptions): string {
  const body = toCues(words, opts)
    .map((c) => `${clock(c.start, ".")} --> ${clock(c.end, ".")}\n${c.lines.map(escapeVtt).join("\n")}\n`)
    .join("\n");
  return `WEBVTT\n\n${body}`;
}

/** Plain text, one paragraph per segment; speaker labels only when there is more than one speaker. */
export function toTxt(transcript: Pick<Transcript, "segments">): string {
  const speakers = new Set(transcript.segments.map((s) => s.speaker));
  const label = speakers.size > 1;
  return transcript.segments.map((s) => (label ? `${s.speaker}: ${s.text}` : s.text)).join("\n\n") + "\n";
}

export interface AssCue {
  start: number;
  end: number;
  words: CaptionWord[];
  lines: CaptionWord[][];
}

/** Groups timed words into caption cues of at most two lines, breaking at pauses and sentences. */
export function toAssCues(
  words: CaptionWord[],
  opts: {
    maxChars: number;
    maxLines?: number;
    maxSeconds?: number;
    maxWords?: number;
    pause?: number;
    uppercase?: boolean;
  },
): AssCue[] {
  const maxLines = opts.maxLines ?? 2;
  const maxSeconds = opts.maxSeconds ?? 3.2;
  const pause = opts.pause ?? 0.7;
  const shown = (w: CaptionWord) => (opts.uppercase ? w.text.toUpperCase() : w.text).trim();
  const fits = (ws: CaptionWord[]) =>
    breakLines(ws.map(shown), opts.maxChars, maxLines).every((l) => l.join(" ").length <= opts.maxChars);
  const groups: CaptionWord[][] = [];
  let cur: CaptionWord[] = [];
  for (const w of words.filter((x) => x.text.trim())) {
    const prev = cur[cur.length - 1];
    const split =
      prev &&
      (w.start - prev.end >= pause ||
        /[.!?…]["'”’)]*$/.test(prev.text) ||
        w.end - cur[0]!.start > maxSeconds ||
        (opts.maxWords !== undefined && cur.length >= opts.maxWords) ||
        !fits([...cur, w]));
    if (split) {
      groups.push(cur);
      cur = [];
    }
    cur.push(w);
  }
  if (cur.length) groups.push(cur);
  return groups.map((g, i) => {
    const next = groups[i + 1]?.[0];
    // Every group is non-empty: one is pushed only after a word, or when cur.length > 0.
    const last = g[g.length - 1]!;
    // Hold the cue a little after its last word, but never into the next cue.
    const end = next ? Math.min(Math.max(last.end, next.start), last.end + 0.6) : last.end + 0.6;
    const texts = g.map(shown);
    const lineWords: CaptionWord[][] = [];
    let k = 0;
    for (const line of breakLines(texts, opts.maxChars, maxLines)) {
      lineWords.push(g.slice(k, k + line.length));
      k += line.length;
    }
    return { start: g[0]!.start, end, words: g, lines: lineWords };
  });
}
