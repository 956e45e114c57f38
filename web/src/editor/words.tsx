/**
 * Captions edited in place: every word of every caption is a small text box (its times stay; a box
 * holding two words splits the word's time between them, as the API does), and a star beside it
 * marks it for the highlight colour, or unmarks it. "Retype line" turns a caption into one box for
 * a misheard phrase: the new words share the caption's span, re-timed by the server as the render
 * will. Captions wholly outside the trimmed clip are left out, and a word outside it is shown
 * greyed and cannot be typed in (the render would not show it).
 */
import { useState } from "react";
import type { Piece } from "../types";
import type { EditorWord } from "./model";

export interface CueDraft {
  words: string[];
  emphasis: boolean[];
}

interface Props {
  cues: Array<{ id: string; words: EditorWord[] }>;
  drafts: Record<string, CueDraft>;
  pieces: Piece[];
  /** `group`: a change of the same group in a row is one undo step (the letters typed into one box). */
  onChange(id: string, draft: CueDraft, group?: string): void;
}

export const draftOf = (words: EditorWord[]): CueDraft => ({
  words: words.map((w) => w.text),
  emphasis: words.map((w) => !!w.emphasis),
});

/** Whether a word is heard in the clip: its middle falls in one of the pieces. */
export const inside = (w: { start: number; end: number }, pieces: Piece[]) =>
  pieces.some((p) => (w.start + w.end) / 2 >= p.start && (w.start + w.end) / 2 <= p.end);

export function Words({ cues, drafts, pieces, onChange }: Props) {
  const [lines, setLines] = useState<Record<string, boolean>>({});
  const shown = cues.filter((c) => c.words.some((w) => inside(w, pieces)));
  if (!shown.length) return <p className="hint">This clip has no words to caption.</p>;
  return (
    <ol className="ed-cues" aria-label="Caption words">
      {shown.map((c) => {
        const d = drafts[c.id] ?? draftOf(c.words);
        const set = (i: number, patch: Partial<{ word: string; emphasis: boolean }>) =>
          onChange(
            c.id,
            {
              words: d.words.map((w, k) => (k === i && patch.word !== undefined ? patch.word : w)),
              emphasis: d.emphasis.map((e, k) => (k === i && patch.emphasis !== undefined ? patch.emphasis : e)),
            },
            patch.word !== undefined ? `word:${c.id}:${i}` : undefined,
          );
        const retype = (text: string) => {
          const words = text.split(" ");
          onChange(c.id, { words, emphasis: words.map((_, k) => d.emphasis[k] ?? false) }, `line:${c.id}`);
        };
        const asLine = !!lines[c.id];
        return (
          <li key={c.id} className="ed-cue">
            <span className="ed-cue-n">{c.id}</span>
            {asLine ? (
              <input
                className="ed-line"
                value={d.words.join(" ")}
                aria-label={`Caption ${c.id} as one line`}
                onChange={(e) => retype(e.currentTarget.value)}
              />
            ) : (
              d.words.map((w, i) => {
                // A word past the caption's own words (a box that now holds two) keeps the last one's place.
                const out = !inside(c.words[Math.min(i, c.words.length - 1)]!, pieces);
                return (
                  <span key={`${c.id}-${i}`} className={`ed-w${d.emphasis[i] ? " lit" : ""}${out ? " out" : ""}`}>
                    <input
                      value={w}
                      size={Math.max(2, w.length)}
                      disabled={out}
                      aria-label={`Word ${i + 1} of caption ${c.id}${out ? " (outside the clip)" : ""}`}
                      onChange={(e) => set(i, { word: e.currentTarget.value })}
                    />
                    <button
                      type="button"
                      className="ed-star"
                      disabled={out}
                      aria-pressed={d.emphasis[i]}
                      aria-label={`Highlight “${w}”`}
                      onClick={() => set(i, { emphasis: !d.emphasis[i] })}
                    >
                      ★
                    </button>
                  </span>
                );
              })
            )}
            <button
              type="button"
              className="small secondary"
              aria-pressed={asLine}
              onClick={() => setLines({ ...lines, [c.id]: !asLine })}
            >
              {asLine ? "Word by word" : `Retype line ${c.id}`}
            </button>
          </li>
        );
      })}
    </ol>
  );
}
