/**
 * The few lines of WebVTT the results page needs: each cue's start, end and text, so the line being
 * heard can be lit and a click on a line can seek there. Settings, notes, styles and regions are
 * skipped; voice and other tags are dropped from the text. (A full parser would be a library.)
 */

export interface Cue {
  start: number;
  end: number;
  text: string;
}

const TIME = String.raw`((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})`;
const TIMING = new RegExp(String.raw`^\s*${TIME}\s+-->\s+${TIME}`);
const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  nbsp: " ",
  quot: '"',
  apos: "'",
  lrm: "",
  rlm: "",
};

/** Seconds from "hh:mm:ss.mmm" or "mm:ss.mmm" (a comma also taken, as SRT writes it). */
export function seconds(stamp: string): number {
  const parts = stamp.replace(",", ".").split(":").map(Number);
  return parts.reduce((acc, p) => acc * 60 + p, 0);
}

export function parseVtt(source: string): Cue[] {
  const cues: Cue[] = [];
  for (const block of source.replace(/\r\n?/g, "\n").split(/\n[ \t]*\n/)) {
    const lines = block.split("\n");
    const at = lines.findIndex((l) => l.includes("-->"));
    if (at < 0 || /^(NOTE|STYLE|REGION)\b/.test(lines[0] ?? "")) continue;
    const m = TIMING.exec(lines[at]!);
    if (!m) continue;
    const text = lines
      .slice(at + 1)
      .join(" ")
      .replace(/<[^>]*>/g, "")
      .replace(/&(\w+);/g, (all, name: string) => ENTITIES[name] ?? all)
      .replace(/\s+/g, " ")
      .trim();
    if (text) cues.push({ start: seconds(m[1]!), end: seconds(m[2]!), text });
  }
  return cues;
}

/**
 * The cue to light at time `t`: the last one started by then, so the line stays lit through a
 * pause between cues; -1 before the first. Cues come in start order.
 */
export function cueAt(cues: Cue[], t: number): number {
  let lo = 0;
  let hi = cues.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cues[mid]!.start <= t) (found = mid), (lo = mid + 1);
    else hi = mid - 1;
  }
  return found;
}

/** "1:05" or "1:02:03": the time shown beside a line. */
export function clock(s: number): string {
  const total = Math.max(0, Math.floor(s));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}
