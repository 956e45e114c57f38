/**
 * The found clips, best first: each a card with its poster, title, hook, length, place in the
 * episode, score, its four parts (hook, coherence, payoff, delivery) and the reasons behind it, a checkbox to choose it
 * for cutting, and Preview, which
 * plays its pieces from the source (Stop preview while it plays).
 */
import { Link, useLocation } from "../router";
import type { Clip } from "../types";
import { Poster } from "./poster";
import { ranked } from "./timeline";

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

interface Props {
  clips: Clip[];
  chosen: ReadonlySet<string>;
  onChoose(clipId: string, on: boolean): void;
  previewing: string | null;
  canPreview: boolean;
  onPreview(clip: Clip): void;
  onStop(): void;
}

export function ClipCards({ clips, chosen, onChoose, previewing, canPreview, onPreview, onStop }: Props) {
  // The editor's route sits under the episode's own path (/episodes/{id}/clips/{n}/edit).
  const base = useLocation().path.replace(/\/+$/, "");
  if (!clips.length) return <p className="hint">No clips yet.</p>;
  return (
    <ol className="clip-list" aria-label="Found clips, best first">
      {ranked(clips).map((c, i) => (
        <li key={c.clip_id} id={`clip-${c.clip_id}`}>
          <article
            className={`clip-card${chosen.has(c.clip_id) ? " chosen" : ""}`}
            aria-labelledby={`clip-${c.clip_id}-t`}
          >
            <Poster clipId={c.clip_id} title={c.title} width={81} eager={i < 2} />
            <div className="clip-body">
              <div className="clip-top">
                <label className="choice clip-pick">
                  <input
                    type="checkbox"
                    checked={chosen.has(c.clip_id)}
                    onChange={(e) => onChoose(c.clip_id, e.currentTarget.checked)}
                    aria-label={`Choose clip ${c.number}`}
                  />
                  <span aria-hidden="true">Choose</span>
                </label>
                <span className="clip-rank">#{i + 1}</span>
                {c.score !== null && <span className="clip-score">Score {Math.round(c.score)}</span>}
              </div>
              <h3 id={`clip-${c.clip_id}-t`} className="clip-title">
                {c.title}
              </h3>
              {c.hook && c.hook !== c.title && <p className="clip-hook">“{c.hook}”</p>}
              <p className="clip-meta">
                <span>{c.length} long</span>
                <span>
                  {c.start}–{c.end}
                </span>
                {c.pieces > 1 && <span>{c.pieces} pieces</span>}
                {CUT[c.cut_status] && <span className="badge badge-run">{CUT[c.cut_status]}</span>}
                {MADE[c.export_status] && (
                  <span className={`badge ${c.export_status === "exported" ? "badge-ok" : "badge-run"}`}>
                    {MADE[c.export_status]}
                  </span>
                )}
              </p>
              {c.about && <p className="clip-about">Found for “{c.about}”</p>}
              {c.scores && (
                <dl className="clip-scores" aria-label="Score in parts">
                  {PARTS.map(([k, name]) => (
                    <div key={k}>
                      <dt>
                        {name} {c.scores![k].value}
                      </dt>
                      <dd>{c.scores![k].reason}</dd>
                    </div>
                  ))}
                </dl>
              )}
              {others(c).length > 0 && (
                <ul className="clip-reasons" aria-label="Why this clip">
                  {others(c).map((r) => (
                    <li key={r}>{r}</li>
                  ))}
                </ul>
              )}
              {previewing === c.clip_id ? (
                <button type="button" className="secondary small" onClick={onStop}>
                  Stop preview
                </button>
              ) : (
                <button
                  type="button"
                  className="secondary small"
                  onClick={() => onPreview(c)}
                  disabled={!canPreview}
                  aria-describedby={`clip-${c.clip_id}-t`}
                >
                  Preview
                </button>
              )}{" "}
              <Link
                className="button-link small"
                href={`${base}/clips/${c.number}/edit`}
                aria-describedby={`clip-${c.clip_id}-t`}
              >
                Edit clip
              </Link>
            </div>
          </article>
        </li>
      ))}
    </ol>
  );
}
