/**
 * One clip of the workspace: its large poster that plays the clip (poster-play.tsx), rank, score,
 * length and place as chips, its title and hook, the score's four parts and the reasons behind it
 * on demand ("Why this clip"), Choose (for cutting), Preview (in the source player, with the
 * waveform and transcript following) and Edit clip (the editor's route). A clip that was cut shows
 * its made clip right here, under it (made-clip.tsx), not in a list of its own.
 */
import type { ReactNode } from "react";
import { Link } from "../router";
import type { Clip, Piece } from "../types";
import { PosterPlay } from "./poster-play";

const CUT: Record<string, string> = { cutting: "Cutting", cut: "Cut", failed: "Cut failed" };
const MADE: Record<string, string> = { rendering: "Rendering", exported: "Made", failed: "Render failed" };
const PARTS = [
  ["hook", "Hook"],
  ["coherence", "Coherence"],
  ["payoff", "Payoff"],
  ["delivery", "Delivery"],
] as const;
/** Reasons the parts do not already give (a brief's match, show business, small talk). */
const others = (c: Clip) =>
  c.scores ? c.reasons.filter((r) => !Object.values(c.scores!).some((p) => p.reason === r)) : c.reasons;

export interface TileProps {
  episodeId: string;
  clip: Clip;
  rank: number;
  pieces: Piece[];
  videoUrl: string | null;
  chosen: boolean;
  onChoose(on: boolean): void;
  previewing: boolean;
  canPreview: boolean;
  onPreview(): void;
  onStop(): void;
  eager?: boolean;
  /** The made clip, when there is one (or one is being made). */
  made?: ReactNode;
}

export function ClipTile(p: TileProps) {
  const c = p.clip;
  const t = `clip-${c.clip_id}-t`;
  const why = others(c);
  return (
    <article className={`clip-tile${p.chosen ? " chosen" : ""}`} aria-labelledby={t}>
      <div className="tile-main">
        <PosterPlay clip={c} pieces={p.pieces} videoUrl={p.videoUrl} eager={p.eager} onAudio={p.onPreview} />
        <div className="tile-body">
          <p className="chips">
            <span className="chip chip-rank">#{p.rank}</span>
            {c.score !== null && <span className="chip chip-score">Score {Math.round(c.score)}</span>}
            <span className="chip">{c.length}</span>
            <span className="chip chip-plain">
              {c.start}–{c.end}
            </span>
            {c.pieces > 1 && <span className="chip chip-plain">{c.pieces} pieces</span>}
            {CUT[c.cut_status] && c.export_status === "none" && (
              <span className="badge badge-run">{CUT[c.cut_status]}</span>
            )}
            {MADE[c.export_status] && (
              <span className={`badge ${c.export_status === "exported" ? "badge-ok" : "badge-run"}`}>
                {MADE[c.export_status]}
              </span>
            )}
          </p>
          <h3 id={t} className="tile-title">
            {c.title}
          </h3>
          {c.hook && c.hook !== c.title && <p className="tile-hook">“{c.hook}”</p>}
          {c.about && <p className="tile-about">Found for “{c.about}”</p>}
          {(c.scores || why.length > 0) && (
            <details className="why">
              <summary>Why this clip</summary>
              {c.scores && (
                <dl className="parts" aria-label="Score in parts">
                  {PARTS.map(([k, name]) => (
                    <div key={k}>
                      <dt>
                        {name} <span className="part-value">{c.scores![k].value}</span>
                      </dt>
                      <dd>{c.scores![k].reason}</dd>
                    </div>
                  ))}
                </dl>
              )}
              {why.length > 0 && (
                <ul className="tile-reasons" aria-label="Why this clip">
                  {why.map((r) => (
                    <li key={r}>{r}</li>
                  ))}
                </ul>
              )}
            </details>
          )}
          <div className="tile-actions">
            <label className="choice tile-pick">
              <input
                type="checkbox"
                checked={p.chosen}
                onChange={(e) => p.onChoose(e.currentTarget.checked)}
                aria-label={`Choose clip ${c.number}`}
              />
              <span aria-hidden="true">Choose</span>
            </label>
            {p.previewing ? (
              <button type="button" className="secondary small" onClick={p.onStop}>
                Stop preview
              </button>
            ) : (
              <button
                type="button"
                className="secondary small"
                onClick={p.onPreview}
                disabled={!p.canPreview}
                aria-describedby={t}
              >
                Preview
              </button>
            )}
            <Link
              className="button-link secondary-link small"
              href={`/episodes/${encodeURIComponent(p.episodeId)}/clips/${c.number}/edit`}
              aria-describedby={t}
            >
              Edit clip
            </Link>
          </div>
        </div>
      </div>
      {p.made && <div className="tile-made">{p.made}</div>}
    </article>
  );
}
