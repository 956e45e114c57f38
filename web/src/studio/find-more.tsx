/**
 * "Find more about…": searches the ready episode again for a topic (POST /episodes/{id}/search).
 * A new search runs in the background (the episode shows "Finding clips" and the page polls it);
 * a brief searched before answers its clips at once. Either way the clips that answer it are listed
 * here, each a link to its card, once the search is over: new clips found for it and clips already
 * on the list that the search answered with (`answers`), in the order the API lists them.
 */
import { useState, type FormEvent } from "react";
import { call } from "../api";
import type { Clip } from "../types";
import { ErrorText, Field, handler, useAction } from "../ui";

const sameBrief = (a: string | null | undefined, b: string) =>
  (a ?? "").trim().toLowerCase() === b.trim().toLowerCase();

/** The clips answering a brief: found for it (`about`), or listed before and answering it (`answers`). */
export const answersTo = (clips: Clip[], about: string) =>
  clips.filter((c) => sameBrief(c.about, about) || (c.answers ?? []).some((a) => sameBrief(a, about)));

interface Props {
  episodeId: string;
  clips: Clip[];
  /** The episode is ready (a search can start) and not searching now. */
  ready: boolean;
  searching: boolean;
  /** Reads the episode again (it is searching now, or has this brief's clips already). */
  onStarted(): Promise<unknown>;
}

export function FindMore({ episodeId, clips, ready, searching, onStarted }: Props) {
  const [about, setAbout] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const text = String(new FormData(e.currentTarget).get("about") ?? "").trim();
    if (!text) return;
    const answer = await run(() =>
      call<{ status: "searching" | "done"; clips: Clip[] }>(
        "POST",
        `/episodes/${encodeURIComponent(episodeId)}/search`,
        { about: text },
      ),
    );
    if (!answer) return;
    await onStarted();
    setAbout(text);
  }
  const found = about === null ? [] : answersTo(clips, about);
  return (
    <form onSubmit={handler(submit)} className="find-more stack">
      <div className="inline-form">
        <Field
          label="Find more about…"
          name="about"
          maxLength={500}
          required
          placeholder="a topic, a name, a question"
          aria-describedby="more-hint"
          disabled={busy || searching}
          autoComplete="off"
        />
        <button type="submit" disabled={busy || searching || !ready}>
          Find more
        </button>
      </div>
      <p className="hint" id="more-hint">
        Searches this episode again for clips on a topic.
      </p>
      <ErrorText error={error} />
      <div aria-live="polite">
        {about !== null &&
          (searching ? (
            <p className="hint">Searching for clips about “{about}”…</p>
          ) : found.length ? (
            <div className="found">
              <p>
                {found.length} clip{found.length === 1 ? "" : "s"} about “{about}”:
              </p>
              <ul>
                {found.map((c) => (
                  <li key={c.clip_id}>
                    <a href={`#clip-${c.clip_id}`}>{c.title}</a> ({c.length})
                    {!sameBrief(c.about, about) && <span className="hint"> — clip {c.number}, already listed</span>}
                  </li>
                ))}
              </ul>
            </div>
          ) : (
            <p className="hint">No clips about “{about}” were found.</p>
          ))}
      </div>
    </form>
  );
}
