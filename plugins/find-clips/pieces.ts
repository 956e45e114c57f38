/**
 * The spans of a clip worth keeping: the clip's words are joined into pieces, and long silences
 * and isolated fillers between them are left out of the render.
 */
import { FILLERS, tokens, type Word } from "./text.js";

/** Silences longer than this inside a clip are cut out. */
const CUT_SILENCE = 1.2;
/** A gap holding a filler word ("um") this long or longer is cut out. */
const CUT_FILLER = 0.5;
export const round = (v: number) => Math.round(v * 1000) / 1000;

/** The spans of a run of words worth keeping: long silences and isolated fillers are dropped. */
export function toPieces(words: Word[], bounds: { start: number; end: number }) {
  const pieces: Array<{ start: number; end: number }> = [];
  let start = bounds.start;
  let prev: Word | undefined;
  let skippingFiller = false;
  for (const w of words) {
    const isFiller = FILLERS.has(tokens(w.text)[0] ?? "");
    if (prev && isFiller) {
      // Look at the gap this filler sits in: cut only when removing it leaves a clean join.
      skippingFiller = true;
      continue;
    }
    if (prev) {
      const gap = w.start - prev.end;
      const cut = skippingFiller ? gap >= CUT_FILLER : gap >= CUT_SILENCE;
      if (cut) {
        pieces.push({ start, end: prev.end + (skippingFiller ? 0.1 : 0.25) });
        start = w.start - (skippingFiller ? 0.08 : 0.2);
      }
    }
    skippingFiller = false;
    prev = w;
  }
  pieces.push({ start, end: bounds.end });
  return pieces.map((p) => ({ start: round(p.start), end: round(p.end) })).filter((p) => p.end - p.start > 0.05);
}

// The audio check of a cut lives with the other audio tools: the cut stage's pace uses it too.
export { confirmGaps, FRAME, type Frames } from "../../daemon/render/silence.js";
