/**
 * A clip's large 9:16 poster that plays the clip's span from the episode's source: hovering with
 * a mouse plays it muted in place, a tap or click (or Enter) plays it with sound; leaving, a
 * second press or the end of its last piece stops it. Pieces play in order (timeline.ts
 * previewStep). An audio-only episode has no picture to show: a press hands the clip to the
 * page's source player instead (`onAudio`).
 */
import { useEffect, useRef, useState } from "react";
import type { Clip, Piece } from "../types";
import { Poster } from "./poster";
import { previewStep } from "./timeline";

interface Props {
  clip: Clip;
  pieces: Piece[];
  /** The source's signed link when it is a video, else null. */
  videoUrl: string | null;
  eager?: boolean;
  onAudio(): void;
}

export function PosterPlay({ clip, pieces, videoUrl, eager, onAudio }: Props) {
  const [mode, setMode] = useState<"hover" | "press" | null>(null);
  const el = useRef<HTMLVideoElement>(null);
  const index = useRef(0);
  const frame = useRef(0);
  const first = pieces[0];

  useEffect(() => {
    const v = el.current;
    if (!mode || !v || !first) return;
    index.current = 0;
    const watch = () => {
      const step = previewStep(pieces, index.current, v.currentTime);
      if (step.kind === "stop") return setMode(null);
      if (step.kind === "seek") {
        index.current = step.index;
        v.currentTime = step.to;
      }
      frame.current = requestAnimationFrame(watch);
    };
    const go = () => {
      v.currentTime = first.start;
      void v.play().then(
        () => (frame.current = requestAnimationFrame(watch)),
        () => setMode(null),
      );
    };
    if (v.readyState >= 1) go();
    else v.addEventListener("loadedmetadata", go, { once: true });
    return () => {
      cancelAnimationFrame(frame.current);
      v.removeEventListener("loadedmetadata", go);
      v.pause();
    };
  }, [mode, pieces, first]);

  const press = () => {
    if (!videoUrl) return onAudio();
    setMode((m) => (m === "press" ? null : "press"));
  };
  return (
    <div
      className={`poster-play${mode ? " playing" : ""}`}
      onPointerEnter={(e) => videoUrl && e.pointerType === "mouse" && setMode((m) => m ?? "hover")}
      onPointerLeave={(e) => e.pointerType === "mouse" && setMode((m) => (m === "hover" ? null : m))}
    >
      <Poster clipId={clip.clip_id} title={clip.title} width={180} eager={eager} />
      {mode && videoUrl && (
        <video
          ref={el}
          className="poster-video"
          src={videoUrl}
          muted={mode === "hover"}
          playsInline
          preload="metadata"
          aria-hidden="true"
          tabIndex={-1}
        />
      )}
      <button
        type="button"
        className="poster-button"
        onClick={press}
        aria-pressed={mode === "press"}
        aria-label={`Play “${clip.title}” here`}
        disabled={!first}
      >
        <span aria-hidden="true">{mode ? "❚❚" : "▶"}</span>
      </button>
    </div>
  );
}
