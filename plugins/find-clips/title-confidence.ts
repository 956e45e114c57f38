/**
 * A clip whose title still holds a word the engine heard below the confidence bar (titles.ts passes
 * such candidates over, but the last resort is the opening words) says so among its reasons: its
 * hook title box stays off unless someone types the words (decideHookTitle in daemon/render/confidence.ts).
 */
import { describeUnsure, unsureWords } from "../../daemon/render/confidence.js";
import type { Clip } from "./clip.js";
import type { Word } from "./text.js";

export function markUnsureTitles(clips: Clip[], words: Word[], existing: Clip[]): Clip[] {
  const listed = new Set(existing.map((c) => c.ref));
  return clips.map((c) => {
    if (listed.has(c.ref) || !c.title) return c;
    const inside = words.filter((w) => w.end > c.start && w.start < c.end);
    const unsure = unsureWords(c.title, inside);
    if (!unsure.length) return c;
    const reason =
      `title heard with low confidence (${describeUnsure(unsure)}): ` + "no hook title box unless its words are typed";
    return { ...c, score: { ...c.score, reasons: [...c.score.reasons, reason] } };
  });
}
