/**
 * The workspace's clip side: the clips as large tiles (clip-tile.tsx), sorted by score, place or
 * length and narrowed to one brief's clips, with each made clip inside its own tile. The list is
 * named by its order ("Found clips, best first"), and the rank on each tile stays its rank by score.
 */
import { useState, type ReactNode } from "react";
import type { Clip, Piece } from "../types";
import { briefsOf, FIRST_SEARCH, orderClips, ranksOf, SORTS, type ClipSort } from "./clip-order";
import { ClipTile } from "./clip-tile";

interface Props {
  episodeId: string;
  clips: Clip[];
  piecesOf(c: Clip): Piece[];
  videoUrl: string | null;
  chosen: ReadonlySet<string>;
  onChoose(clipId: string, on: boolean): void;
  previewing: string | null;
  canPreview: boolean;
  onPreview(c: Clip): void;
  onStop(): void;
  madeOf(c: Clip): ReactNode;
}

export function ClipRail(p: Props) {
  const [sort, setSort] = useState<ClipSort>("score");
  const [brief, setBrief] = useState("");
  const briefs = briefsOf(p.clips);
  if (!p.clips.length) return <p className="hint">No clips yet.</p>;
  const shown = orderClips(p.clips, sort, brief);
  const ranks = ranksOf(p.clips);
  const order = SORTS.find((s) => s.value === sort)!;
  return (
    <>
      <div className="rail-tools">
        <div className="field">
          <label htmlFor="clip-sort">Sort clips</label>
          <select id="clip-sort" value={sort} onChange={(e) => setSort(e.currentTarget.value as ClipSort)}>
            {SORTS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        {briefs.length > 0 && (
          <div className="field">
            <label htmlFor="clip-brief">Show</label>
            <select id="clip-brief" value={brief} onChange={(e) => setBrief(e.currentTarget.value)}>
              <option value="">All clips ({p.clips.length})</option>
              <option value={FIRST_SEARCH}>From the first search</option>
              {briefs.map((b) => (
                <option key={b} value={b}>
                  About “{b}”
                </option>
              ))}
            </select>
          </div>
        )}
      </div>
      <ol className="clip-tiles" aria-label={`Found clips, ${order.list}`}>
        {shown.map((c, i) => (
          <li key={c.clip_id} id={`clip-${c.clip_id}`}>
            <ClipTile
              episodeId={p.episodeId}
              clip={c}
              rank={ranks.get(c.clip_id) ?? i + 1}
              pieces={p.piecesOf(c)}
              videoUrl={p.videoUrl}
              chosen={p.chosen.has(c.clip_id)}
              onChoose={(on) => p.onChoose(c.clip_id, on)}
              previewing={p.previewing === c.clip_id}
              canPreview={p.canPreview}
              onPreview={() => p.onPreview(c)}
              onStop={p.onStop}
              eager={i < 2}
              made={p.madeOf(c)}
            />
          </li>
        ))}
      </ol>
    </>
  );
}
