/**
 * The episode's transcript (GET /episodes/{id}/transcript?q=), searchable as you type (the server
 * filters; a quarter second after the last key), each line a button with its time that plays the
 * source from there. The line being played is marked, and matches are highlighted.
 */
import { memo, useId, useState, type ReactNode } from "react";
import type { Segment } from "../types";
import { usePlayhead, type Playhead } from "./playhead";
import { clock } from "./timeline";
import { useSearch } from "./use-search";

interface Props {
  episodeId: string;
  playhead: Playhead;
  onPlay(seconds: number): void;
  /** False while there is nothing to read yet (the source is still being transcribed). */
  ready: boolean;
}

export function Transcript({ episodeId, playhead, onPlay, ready }: Props) {
  const id = useId();
  const [q, setQ] = useState("");
  const want = q.trim();
  const { data, error } = useSearch<{ segments: Segment[]; total: number; truncated?: boolean }>(
    ready
      ? `/episodes/${encodeURIComponent(episodeId)}/transcript${want ? `?q=${encodeURIComponent(want)}` : ""}`
      : null,
  );
  const answer = data && { ...data, q: want };

  const shown = answer?.truncated
    ? `the first ${answer.segments.length} of ${answer.total} lines`
    : `${answer?.total} line${answer?.total === 1 ? "" : "s"}`;
  const count = answer ? `${shown}${answer.q ? ` with “${answer.q}”` : ""}` : "";
  return (
    <div className="transcript">
      <div className="field">
        <label htmlFor={`${id}-q`}>Search the transcript</label>
        <input
          id={`${id}-q`}
          type="search"
          value={q}
          onChange={(e) => setQ(e.currentTarget.value)}
          maxLength={200}
          autoComplete="off"
          disabled={!ready}
        />
      </div>
      <p className="hint" aria-live="polite">
        {!ready ? "The transcript appears here once the episode is transcribed." : count}
      </p>
      {error && (
        <p role="alert" className="alert alert-error">
          {error}
        </p>
      )}
      {/* The box keeps its height from the start, so lines arriving move nothing below it. */}
      {ready && <Lines segments={answer?.segments ?? []} q={answer?.q ?? ""} playhead={playhead} onPlay={onPlay} />}
    </div>
  );
}

function Lines({
  segments,
  q,
  playhead,
  onPlay,
}: {
  segments: Segment[];
  q: string;
  playhead: Playhead;
  onPlay(s: number): void;
}) {
  const t = usePlayhead(playhead);
  return (
    <ol className="lines lines-fixed" aria-label="Transcript lines">
      {segments.map((s, i) => (
        <Line key={`${s.start}-${i}`} segment={s} q={q} current={t >= s.start && t < s.end && t > 0} onPlay={onPlay} />
      ))}
    </ol>
  );
}

const Line = memo(function Line({
  segment: s,
  q,
  current,
  onPlay,
}: {
  segment: Segment;
  q: string;
  current: boolean;
  onPlay(s: number): void;
}) {
  return (
    <li>
      <button
        type="button"
        className="line"
        aria-current={current ? "true" : undefined}
        onClick={() => onPlay(s.start)}
      >
        <span className="line-time">{clock(s.start)}</span> <span className="line-text">{highlight(s.text, q)}</span>
      </button>
    </li>
  );
});

/** The text with each case-insensitive match of `q` in a <mark>. */
function highlight(text: string, q: string) {
  if (!q) return text;
  const parts: ReactNode[] = [];
  const lower = text.toLowerCase();
  const needle = q.toLowerCase();
  let at = 0;
  for (let i = lower.indexOf(needle); i >= 0 && parts.length < 40; i = lower.indexOf(needle, at)) {
    if (i > at) parts.push(text.slice(at, i));
    parts.push(<mark key={i}>{text.slice(i, i + q.length)}</mark>);
    at = i + q.length;
  }
  parts.push(text.slice(at));
  return parts;
}
