/**
 * A clip's own timeline: the pieces of an episode it joins, and the words spoken in them re-timed
 * onto the joined clip. The cut stage and the account API's captions both read clips this way.
 */
export interface Piece {
  start: number;
  end: number;
}

export interface TimedWord {
  text: string;
  start: number;
  end: number;
  confidence?: number;
  speaker?: string | null;
}

const round = (v: number) => Math.round(v * 1000) / 1000;

/** The words spoken inside the pieces, re-timed onto the joined clip. */
export function retimeWords(words: TimedWord[], pieces: Piece[]): TimedWord[] {
  const out: TimedWord[] = [];
  let offset = 0;
  for (const p of pieces) {
    const len = p.end - p.start;
    for (const w of words) {
      const mid = (w.start + w.end) / 2;
      if (mid < p.start || mid >= p.end) continue;
      out.push({
        ...w,
        start: round(offset + Math.max(0, w.start - p.start)),
        end: round(offset + Math.min(len, w.end - p.start)),
      });
    }
    offset += len;
  }
  return out;
}
