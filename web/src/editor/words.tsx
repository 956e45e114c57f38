/**
 * Captions edited word by word, in place: every word of every caption is a small text box (its
 * times stay; a box holding two words splits the word's time between them, as the API does), and
 * a star beside it marks it for the highlight colour, or unmarks it. Words outside the trimmed
 * clip are left out.
 */
import type { EditorWord } from "./model";

export interface CueDraft {
  words: string[];
  emphasis: boolean[];
}

interface Props {
  cues: Array<{ id: string; words: EditorWord[] }>;
  drafts: Record<string, CueDraft>;
  onChange(id: string, draft: CueDraft): void;
}

export const draftOf = (words: EditorWord[]): CueDraft => ({
  words: words.map((w) => w.text),
  emphasis: words.map((w) => !!w.emphasis),
});

export function Words({ cues, drafts, onChange }: Props) {
  if (!cues.length) return <p className="hint">This clip has no words to caption.</p>;
  return (
    <ol className="ed-cues" aria-label="Caption words">
      {cues.map((c) => {
        const d = drafts[c.id] ?? draftOf(c.words);
        const set = (i: number, patch: Partial<{ word: string; emphasis: boolean }>) =>
          onChange(c.id, {
            words: d.words.map((w, k) => (k === i && patch.word !== undefined ? patch.word : w)),
            emphasis: d.emphasis.map((e, k) => (k === i && patch.emphasis !== undefined ? patch.emphasis : e)),
          });
        return (
          <li key={c.id} className="ed-cue">
            <span className="ed-cue-n">{c.id}</span>
            {d.words.map((w, i) => (
              <span key={`${c.id}-${i}`} className={`ed-w${d.emphasis[i] ? " lit" : ""}`}>
                <input
                  value={w}
                  size={Math.max(2, w.length)}
                  aria-label={`Word ${i + 1} of caption ${c.id}`}
                  onChange={(e) => set(i, { word: e.currentTarget.value })}
                />
                <button
                  type="button"
                  className="ed-star"
                  aria-pressed={d.emphasis[i]}
                  aria-label={`Highlight “${w}”`}
                  onClick={() => set(i, { emphasis: !d.emphasis[i] })}
                >
                  ★
                </button>
              </span>
            ))}
          </li>
        );
      })}
    </ol>
  );
}
