/**
 * The waveform strip (GET /episodes/{id}/waveform.png, drawn once on the server) with each found
 * clip's pieces marked over it, and the player's position as a line. A mark is a button: it plays
 * the source from that piece. The image has a fixed box, so nothing shifts when it arrives.
 */
import { useState } from "react";
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
  return (
    <div className="wave">
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
      <ul className="wave-marks" aria-label="Clips on the timeline">
        {clips.flatMap((c) =>
          marksFor(piecesOf(c), duration).map((m, i) => (
            <li key={`${c.clip_id}-${i}`} className="wave-mark" style={{ left: `${m.left}%`, width: `${m.width}%` }}>
              <button type="button" title={`${c.title} (${clock(m.start)}–${clock(m.end)})`} aria-label={`Play clip ${c.number} from ${clock(m.start)}`} onClick={() => onPlay(m.start)} />
            </li>
          )),
        )}
      </ul>
      {duration ? <Head duration={duration} playhead={playhead} /> : null}
    </div>
  );
}

function Head({ duration, playhead }: { duration: number; playhead: Playhead }) {
  const t = usePlayhead(playhead);
  return <span className="wave-head" style={{ left: `${Math.min(100, (t / duration) * 100)}%` }} aria-hidden="true" />;
}
