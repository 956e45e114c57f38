/**
 * The episode's source in a <video> or <audio> from its signed, Range-capable link (GET
 * /episodes/{id}/media): the transcript plays it from a line, the waveform from a clip's mark, and
 * a clip's Preview plays its pieces in order without rendering anything: seek to a piece's start,
 * jump at its end to the next, pause after the last (timeline.ts previewStep, checked every frame
 * while a preview plays). Pausing by hand ends a preview. An expired link is fetched again.
 */
import { useEffect, useImperativeHandle, useRef, useState, type Ref } from "react";
import type { EpisodeMedia, Piece } from "../types";
import type { Playhead } from "./playhead";
import { clock, previewStep } from "./timeline";

export interface PlayerHandle {
  playFrom(seconds: number): void;
  /** Plays `pieces` in order; `key` names the preview (a clip id) for onPreviewing. */
  preview(key: string, pieces: Piece[], label: string): void;
  stop(): void;
}

interface Props {
  ref: Ref<PlayerHandle>;
  media: EpisodeMedia;
  title: string;
  playhead: Playhead;
  /** The preview playing now (its key), or null. */
  onPreviewing(key: string | null): void;
  /** The link failed after it expired: fetch a fresh one. */
  onExpired(): void;
}

export function SourcePlayer({ ref, media, title, playhead, onPreviewing, onExpired }: Props) {
  const el = useRef<HTMLVideoElement & HTMLAudioElement>(null);
  const preview = useRef<{ key: string; pieces: Piece[]; index: number } | null>(null);
  const frame = useRef(0);
  const [said, setSaid] = useState("");
  const [failed, setFailed] = useState<string | null>(null);
  const video = media.source.kind ? media.source.kind === "video" : media.source.type.startsWith("video/");

  function end(pause: boolean) {
    cancelAnimationFrame(frame.current);
    const was = preview.current;
    preview.current = null;
    if (pause) el.current?.pause();
    if (was) onPreviewing(null);
  }
  function watch() {
    const m = el.current;
    const p = preview.current;
    if (!m || !p) return;
    const step = previewStep(p.pieces, p.index, m.currentTime);
    if (step.kind === "stop") {
      setSaid("Preview finished.");
      return end(true);
    }
    if (step.kind === "seek") {
      p.index = step.index;
      m.currentTime = step.to;
    }
    frame.current = requestAnimationFrame(watch);
  }
  function play(from: number) {
    const m = el.current;
    if (!m) return;
    m.currentTime = from;
    m.play().catch((err: unknown) => {
      if ((err as Error)?.name !== "AbortError")
        setFailed("The browser did not start playing: press play on the player.");
    });
  }

  useImperativeHandle(ref, () => ({
    playFrom(seconds) {
      end(false);
      setSaid(`Playing from ${clock(seconds)}.`);
      play(seconds);
    },
    preview(key, pieces, label) {
      end(false);
      if (!pieces.length) return;
      preview.current = { key, pieces, index: 0 };
      onPreviewing(key);
      setSaid(`Previewing ${label}: ${pieces.length} piece${pieces.length === 1 ? "" : "s"}.`);
      play(pieces[0]!.start);
      frame.current = requestAnimationFrame(watch);
    },
    stop() {
      setSaid("Preview stopped.");
      end(true);
    },
  }));
  useEffect(() => () => cancelAnimationFrame(frame.current), []);

  const common = {
    ref: el,
    src: media.source.url,
    controls: true,
    preload: "metadata" as const,
    onTimeUpdate: () => playhead.set(el.current?.currentTime ?? 0),
    onSeeked: () => playhead.set(el.current?.currentTime ?? 0),
    // A pause the page did not ask for (the player's own button) ends the preview.
    onPause: () => preview.current && end(false),
    onEnded: () => end(false),
    onPlaying: () => setFailed(null),
    onError: () => {
      if (Date.parse(media.source.expires_at) - 60_000 < Date.now()) onExpired();
      else setFailed("The source could not be played in this browser.");
    },
  };
  return (
    <div className={video ? "player player-video" : "player player-audio"}>
      {video ? (
        <video {...common} playsInline width={640} height={360} aria-label={`Source of ${title}`} />
      ) : (
        <audio {...common} aria-label={`Source of ${title}`} />
      )}
      <p className="player-said" aria-live="polite">
        {said}
      </p>
      {failed && (
        <p role="alert" className="alert alert-error">
          {failed}
        </p>
      )}
    </div>
  );
}
