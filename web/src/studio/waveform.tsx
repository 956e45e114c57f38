/**
 * The waveform strip (GET /episodes/{id}/waveform.png, drawn once on the server) with each found
 * clip's pieces marked over it, and the player's position as a line. A click or tap on the strip
 * plays the source from that point: a pointer shortcut only, since marks of a long episode are
 * too narrow and close to be buttons of their own; from the keyboard the player, the transcript's
 * lines and each clip's Preview do the same. The image has a fixed shape, so nothing shifts.
 */
import { useState, type MouseEvent } from "react";
import type { Clip, Piece } from "../types";
import { usePlayhead, type Playhead } from "./playhead";
import { clock, marksFor } from "./timeline";

interface Props {
  episodeId: string;
  duration: number | null;
  clips: Clip[];
  piecesOf(clip: Clip): Piece[];
  playhead: Playhead;
  onPlay(seconds: number): void;
}

export function Waveform({ episodeId, duration, clips, piecesOf, playhead, onPlay }: Props) {
  const [failed, setFailed] = useState(false);
  function seek(e: MouseEvent<HTMLDivElement>) {
    if (!duration) return;
    const box = e.currentTarget.getBoundingClientRect();
    onPlay(Math.max(0, Math.min(1, (e.clientX - box.left) / box.width)) * duration);
  }
  return (
    <div className="wave" onClick={seek}>
      {failed ? (
        <div className="wave-img wave-none" aria-hidden="true" />
      ) : (
        <img
          className="wave-img"
          src={`/web/api/v1/episodes/${encodeURIComponent(episodeId)}/waveform.png`}
          width={1200}
          height={120}
          alt={`Loudness of the episode over ${duration ? clock(duration) : "its length"}, with the found clips marked`}
          decoding="async"
          fetchPriority="high"
          onError={() => setFailed(true)}
        />
      )}
      <div className="wave-marks" aria-hidden="true">
        {clips.flatMap((c) =>
          marksFor(piecesOf(c), duration).map((m, i) => (
            <span
              key={`${c.clip_id}-${i}`}
              className="wave-mark"
              style={{ left: `${m.left}%`, width: `${m.width}%` }}
              title={`Clip ${c.number}: ${c.title} (${clock(m.start)}–${clock(m.end)})`}
            />
          )),
        )}
      </div>
      {duration ? <Head duration={duration} playhead={playhead} /> : null}
    </div>
  );
}

function Head({ duration, playhead }: { duration: number; playhead: Playhead }) {
  const t = usePlayhead(playhead);
  return <span className="wave-head" style={{ left: `${Math.min(100, (t / duration) * 100)}%` }} aria-hidden="true" />;
}
