/**
 * A made clip whose hook title box was asked for and left off, because the title's words were
 * heard with low confidence (the clip's `hook_title_dropped`, issue 39): says why, and offers the
 * answer's two choices, drawing the title as heard or typed words, each one restyle.
 */
import { useState, type FormEvent } from "react";
import { call } from "../api";
import type { Clip, RestyleAnswer } from "../types";
import { ErrorText, handler, useAction } from "../ui";

interface Props {
  clip: Clip;
  busy: boolean;
  onRestyled(answer: RestyleAnswer, title: string): void;
}

export function HookDropped({ clip, busy, onRestyled }: Props) {
  const d = clip.hook_title_dropped;
  const typed = d?.choices.find((c) => c.choice === "own_words")?.restyle.hook_title;
  const [words, setWords] = useState(typeof typed === "string" ? typed : "");
  const action = useAction();
  if (!d) return null;
  const anyway = d.choices.find((c) => c.choice === "burn_anyway");
  async function restyle(body: Record<string, unknown>) {
    const answer = await action.run(() =>
      call<RestyleAnswer>("PATCH", `/clips/${encodeURIComponent(clip.clip_id)}`, body),
    );
    if (answer?.changes.length) onRestyled(answer, clip.title);
  }
  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!words.trim()) return action.setError("Type the words the title box should show.");
    await restyle({ hook_title: words.trim() });
  }
  const off = action.busy || busy;
  return (
    <div className="alert alert-warn stack" role="status">
      <p>
        <strong>No hook title:</strong> its words were heard with low confidence (
        {d.unsure_words.map((u) => `“${u.word}” ${u.confidence.toFixed(2)}`).join(", ")}), so the box was left off.
      </p>
      {anyway && (
        <div>
          <button type="button" disabled={off} onClick={handler(() => restyle(anyway.restyle))}>
            Burn the title anyway
          </button>
        </div>
      )}
      <form onSubmit={handler(submit)} className="stack">
        <label>
          Or type the words{" "}
          <input value={words} maxLength={120} onChange={(e) => setWords(e.currentTarget.value)} disabled={off} />
        </label>
        <button type="submit" disabled={off}>
          Draw these words
        </button>
      </form>
      <ErrorText error={action.error} />
    </div>
  );
}
