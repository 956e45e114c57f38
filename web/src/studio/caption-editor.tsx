/**
 * "Edit captions" on a made clip: each caption as a text box (the words keep their times), and
 * buttons that move the clip's start or end by one whole sentence. Saving sends only what changed
 * (PATCH /clips/{id}/captions); the clip is rendered again and its job's progress shows above.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { call } from "../api";
import type { Caption, Clip, RestyleAnswer } from "../types";
import { ErrorText, handler, useAction } from "../ui";
import { clock } from "./timeline";

export interface CaptionEditAnswer extends RestyleAnswer {
  start_seconds?: number;
  end_seconds?: number;
}

interface Props {
  clip: Clip;
  /** Something of the clip is being cut or rendered: saving waits. */
  busy: boolean;
  onEdited(answer: CaptionEditAnswer): void;
}

const plural = (n: number) => `${Math.abs(n)} sentence${Math.abs(n) === 1 ? "" : "s"}`;

/** What a delta does, in words: "1 sentence earlier", "2 sentences dropped". */
function said(delta: number, grow: string): string {
  return delta === 0 ? "as it is" : delta > 0 ? `${plural(delta)} ${grow}` : `${plural(delta)} dropped`;
}

export function CaptionEditor({ clip, busy, onEdited }: Props) {
  const id = useId();
  const [cues, setCues] = useState<Caption[] | null>(null);
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [start, setStart] = useState(0);
  const [end, setEnd] = useState(0);
  const [note, setNote] = useState("");
  // The "Rendering again" note is about the job in flight: it goes when that job is over.
  const wasBusy = useRef(busy);
  useEffect(() => {
    if (wasBusy.current && !busy) setNote("");
    wasBusy.current = busy;
  }, [busy]);
  const action = useAction();
  const load = useAction();
  // Read again when the clip renders anew (a new link), so the boxes show what it now says.
  const version = `${clip.clip_id} ${clip.download_url ?? ""} ${clip.start_seconds} ${clip.end_seconds}`;
  useEffect(() => {
    let live = true;
    void load.run(async () => {
      const r = await call<{ captions: Caption[] }>(
        "GET",
        `/clips/${encodeURIComponent(clip.clip_id)}/captions?limit=200`,
      );
      if (!live) return;
      setCues(r.captions);
      setTexts(Object.fromEntries(r.captions.map((c) => [c.id, c.text])));
    });
    return () => void (live = false);
  }, [version]);

  const changed = (cues ?? []).filter((c) => (texts[c.id] ?? c.text).trim() !== c.text);
  const nothing = !changed.length && !start && !end;
  async function submit(e: FormEvent) {
    e.preventDefault();
    if (nothing) return action.setError("Change a caption's words or the clip's start or end first.");
    const body = {
      ...(changed.length ? { cues: changed.map((c) => ({ id: c.id, text: texts[c.id]!.trim() })) } : {}),
      ...(start ? { start_sentence_delta: start } : {}),
      ...(end ? { end_sentence_delta: end } : {}),
    };
    const answer = await action.run(() =>
      call<CaptionEditAnswer>("PATCH", `/clips/${encodeURIComponent(clip.clip_id)}/captions`, body),
    );
    if (!answer) return;
    setStart(0);
    setEnd(0);
    setNote(
      answer.changes.length
        ? `Rendering again: ${answer.changes.join("; ")}.`
        : "Nothing to change: the captions already read so.",
    );
    if (answer.changes.length) onEdited(answer);
  }

  return (
    <details className="caption-editor">
      <summary>Edit captions</summary>
      <form onSubmit={handler(submit)} className="stack" aria-describedby={`${id}-hint`}>
        <p className="hint" id={`${id}-hint`}>
          Fix misheard words: each caption keeps its timing. Move the start or end by whole sentences. Saving renders
          the clip again.
        </p>
        <SentenceSteps
          legend={`Start (${said(start, "earlier")})`}
          grow="One sentence earlier"
          drop="Drop the first sentence"
          value={start}
          onChange={setStart}
          disabled={action.busy}
        />
        <SentenceSteps
          legend={`End (${said(end, "later")})`}
          grow="One sentence later"
          drop="Drop the last sentence"
          value={end}
          onChange={setEnd}
          disabled={action.busy}
        />
        <ErrorText error={load.error} />
        {cues && cues.length === 0 && <p className="hint">This clip has no captions to edit.</p>}
        {cues && cues.length > 0 && (
          <ol className="cue-list" aria-label="Captions to edit">
            {cues.map((c) => (
              <li key={c.id} className="field">
                <label htmlFor={`${id}-cue-${c.id}`}>
                  Caption {c.id} <span className="line-time">{clock(c.start_seconds)}</span>
                </label>
                <input
                  id={`${id}-cue-${c.id}`}
                  type="text"
                  value={texts[c.id] ?? c.text}
                  maxLength={300}
                  onChange={(e) => {
                    const v = e.currentTarget.value;
                    setTexts((t) => ({ ...t, [c.id]: v }));
                  }}
                  disabled={action.busy}
                />
              </li>
            ))}
          </ol>
        )}
        <ErrorText error={action.error} />
        <p className="hint" aria-live="polite">
          {note}
        </p>
        <div>
          <button type="submit" disabled={action.busy || busy || nothing}>
            Save and render
          </button>
        </div>
      </form>
    </details>
  );
}

/** Two buttons that step one end of the clip by a sentence: out (grow) or in (drop). */
function SentenceSteps(p: {
  legend: string;
  grow: string;
  drop: string;
  value: number;
  onChange(v: number): void;
  disabled: boolean;
}) {
  return (
    <fieldset className="sentence-steps">
      <legend>{p.legend}</legend>
      <button type="button" className="secondary" onClick={() => p.onChange(p.value + 1)} disabled={p.disabled}>
        {p.grow}
      </button>{" "}
      <button type="button" className="secondary" onClick={() => p.onChange(p.value - 1)} disabled={p.disabled}>
        {p.drop}
      </button>
    </fieldset>
  );
}
