/**
 * The editor's timeline: the episode's loudness around the clip (the studio's waveform strip,
 * shifted and stretched to this window), the clip's pieces and the pauses cut between them (each
 * with "Put back"), the words, the sentence edges, the cut's scene changes, and two trim handles.
 * A handle snaps to word edges as it is dragged, or with the arrow keys steps a word (Shift or
 * PageUp/PageDown: a sentence; Home/End: as far as it may go), as a slider does. Neither handle may
 * make the clip shorter than the shortest clip the server takes (MIN_CLIP_S): the edges that would
 * are not offered, so the handles cannot cross.
 */
import { useRef, type KeyboardEvent, type PointerEvent } from "react";
import type { Piece } from "../types";
import { clock } from "../studio/timeline";
import {
  endEdges,
  gapsOf,
  lengthOf,
  MIN_CLIP_S,
  snap,
  sourceTime,
  startEdges,
  step,
  trim,
  type EditorView,
} from "./model";

interface Props {
  view: EditorView;
  pieces: Piece[];
  playhead: number | null;
  /** `gesture`: the moves of one drag share it, so they are one undo step. */
  onTrim(side: "start" | "end", t: number, gesture?: string): void;
  onRestore(gap: number): void;
  onSeek(t: number): void;
}

export function Timeline({ view, pieces, playhead, onTrim, onRestore, onSeek }: Props) {
  const strip = useRef<HTMLDivElement>(null);
  const { start: w0, end: w1 } = view.window;
  const span = Math.max(0.1, w1 - w0);
  const pct = (t: number) => `${(((t - w0) / span) * 100).toFixed(3)}%`;
  const timeAt = (clientX: number) => {
    const r = strip.current!.getBoundingClientRect();
    return w0 + ((clientX - r.left) / r.width) * span;
  };
  const sentenceStarts = view.sentences.map((s) => s.start);
  const sentenceEnds = view.sentences.map((s) => s.end);
  // Only the edges that leave a clip of at least MIN_CLIP_S.
  const allowed = (side: "start" | "end", list: number[]) =>
    list.filter((t) => lengthOf(trim(pieces, side, t)) >= MIN_CLIP_S - 0.001);
  const edges = (side: "start" | "end") =>
    allowed(side, side === "start" ? startEdges(view.words) : endEdges(view.words));
  const drag = (side: "start" | "end") => (e: PointerEvent<HTMLDivElement>) => {
    e.preventDefault();
    const el = e.currentTarget;
    el.setPointerCapture(e.pointerId);
    const gesture = `drag:${side}:${e.timeStamp}`;
    const move = (ev: globalThis.PointerEvent) => {
      const list = edges(side);
      if (list.length) onTrim(side, snap(list, timeAt(ev.clientX)), gesture);
    };
    const up = () => {
      el.removeEventListener("pointermove", move);
      el.removeEventListener("pointerup", up);
    };
    el.addEventListener("pointermove", move);
    el.addEventListener("pointerup", up);
  };
  const key = (side: "start" | "end", at: number) => (e: KeyboardEvent<HTMLDivElement>) => {
    const words = edges(side);
    const sentences = allowed(side, side === "start" ? sentenceStarts : sentenceEnds);
    const to: Record<string, () => number | undefined> = {
      ArrowRight: () => step(e.shiftKey ? sentences : words, at, 1),
      ArrowUp: () => step(e.shiftKey ? sentences : words, at, 1),
      ArrowLeft: () => step(e.shiftKey ? sentences : words, at, -1),
      ArrowDown: () => step(e.shiftKey ? sentences : words, at, -1),
      PageUp: () => step(sentences, at, 1),
      PageDown: () => step(sentences, at, -1),
      // As far as the handle may go, never back past where it already is (a start before the first word).
      Home: () => Math.min(at, ...words),
      End: () => Math.max(at, ...words),
    };
    const t = to[e.key]?.();
    if (t === undefined) return;
    e.preventDefault();
    if (Number.isFinite(t) && Math.abs(t - at) > 0.001) onTrim(side, t);
  };
  const first = pieces[0]!.start;
  const last = pieces.at(-1)!.end;
  // Scene changes are on the clip's own (cut) timeline; drawn where they fall in the episode.
  const cuts = view.scenes.slice(1).map((s) => sourceTime(view.timeline, s.start));
  return (
    <div className="ed-timeline">
      <div
        className="ed-strip"
        ref={strip}
        onClick={(e) => {
          if (e.target === e.currentTarget || (e.target as HTMLElement).classList.contains("ed-wave"))
            onSeek(timeAt(e.clientX));
        }}
      >
        <img
          className="ed-wave"
          src={`/web/api/v1/episodes/${view.episode_id}/waveform.png`}
          alt={`Loudness from ${clock(w0)} to ${clock(w1)}`}
          style={{
            width: `${(view.episode_duration / span) * 100}%`,
            left: `${(-w0 / span) * 100}%`,
          }}
        />
        {pieces.map((p) => (
          <div
            key={`${p.start}`}
            className="ed-piece"
            style={{ left: pct(p.start), width: pct(w0 + p.end - p.start) }}
          />
        ))}
        {view.sentences.map((s) => (
          <div key={`s${s.start}`} className="ed-sentence" style={{ left: pct(s.start) }} aria-hidden="true" />
        ))}
        {cuts.map((t) => (
          <div key={`c${t}`} className="ed-scene" style={{ left: pct(t) }} title="Scene change" aria-hidden="true" />
        ))}
        {playhead !== null && <div className="ed-playhead" style={{ left: pct(playhead) }} aria-hidden="true" />}
        <div
          className="ed-handle start"
          role="slider"
          tabIndex={0}
          aria-label="Clip start"
          aria-valuemin={Math.floor(w0)}
          aria-valuemax={Math.ceil(last)}
          aria-valuenow={+first.toFixed(2)}
          aria-valuetext={clock(first)}
          style={{ left: pct(first) }}
          onPointerDown={drag("start")}
          onKeyDown={key("start", first)}
        />
        <div
          className="ed-handle end"
          role="slider"
          tabIndex={0}
          aria-label="Clip end"
          aria-valuemin={Math.floor(first)}
          aria-valuemax={Math.ceil(w1)}
          aria-valuenow={+last.toFixed(2)}
          aria-valuetext={clock(last)}
          style={{ left: pct(last) }}
          onPointerDown={drag("end")}
          onKeyDown={key("end", last)}
        />
      </div>
      <div className="ed-words" aria-hidden="true">
        {view.words.map((w) => (
          <span
            key={`${w.start}-${w.text}`}
            className={`ed-word${w.end <= first || w.start >= last ? " out" : ""}`}
            style={{ left: pct(w.start), width: pct(w0 + w.end - w.start) }}
            title={w.text}
          />
        ))}
      </div>
      <div className="ed-scale">
        <span>{clock(w0)}</span>
        <span>
          Clip {clock(first)} to {clock(last)}
        </span>
        <span>{clock(w1)}</span>
      </div>
      {gapsOf(pieces).length > 0 && (
        <ul className="ed-gaps" aria-label="Pauses cut out">
          {gapsOf(pieces).map((g, i) => (
            <li key={g.start}>
              {clock(g.start)} to {clock(g.end)} ({(g.end - g.start).toFixed(1)} s){" "}
              <button type="button" className="small" onClick={() => onRestore(i)}>
                Put back
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
