/**
 * A made clip's captions on its own timeline (GET /clips/{id}/captions?q=), searchable as you type;
 * clicking one plays the clip from there.
 */
import { useId, useState } from "react";
import type { Caption } from "../types";
import { clock } from "./timeline";
import { useSearch } from "./use-search";

export function Captions({ clipId, onSeek }: { clipId: string; onSeek(seconds: number): void }) {
  const id = useId();
  const [q, setQ] = useState("");
  const want = q.trim();
  const { data: list, error } = useSearch<{ captions: Caption[]; total: number }>(
    `/clips/${encodeURIComponent(clipId)}/captions?limit=200${want ? `&q=${encodeURIComponent(want)}` : ""}`,
  );
  return (
    <div className="captions">
      <div className="field">
        <label htmlFor={`${id}-q`}>Search captions</label>
        <input
          id={`${id}-q`}
          type="search"
          value={q}
          onChange={(e) => setQ(e.currentTarget.value)}
          maxLength={200}
          autoComplete="off"
        />
      </div>
      <p className="hint" aria-live="polite">
        {list ? `${list.total} caption${list.total === 1 ? "" : "s"}${q.trim() ? ` with “${q.trim()}”` : ""}` : ""}
      </p>
      {error && (
        <p role="alert" className="alert alert-error">
          {error}
        </p>
      )}
      {list && list.captions.length > 0 && (
        <ol className="lines lines-short" aria-label="Captions">
          {list.captions.map((c) => (
            <li key={c.id}>
              <button type="button" className="line" onClick={() => onSeek(c.start_seconds)}>
                <span className="line-time">{clock(c.start_seconds)}</span> <span className="line-text">{c.text}</span>
              </button>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
