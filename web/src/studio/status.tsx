/** How the studio shows where work stands: status badges and labelled progress bars. */
import type { Episode, EpisodeStatus, Job } from "../types";
import { when } from "../ui";

export const EPISODE_STATUS: Record<EpisodeStatus, string> = {
  awaiting_upload: "Waiting for the upload",
  importing: "Importing",
  transcribing: "Transcribing",
  searching: "Finding clips",
  ready: "Ready",
  failed: "Failed",
};

export const JOB_STATUS: Record<Job["status"], string> = {
  queued: "Queued",
  running: "Running",
  completed: "Done",
  failed: "Failed",
};

/** An episode's status in words: one stopped by its owner (failed, code "cancelled") says "Stopped", not "Failed". */
export const episodeStatusWords = (e: Pick<Episode, "status" | "failure">): string =>
  e.status === "failed" && e.failure?.code === "cancelled" ? "Stopped" : (EPISODE_STATUS[e.status] ?? e.status);

/** An episode is being worked on (and so worth polling) in these states. */
export const isRunning = (s: EpisodeStatus) => s === "importing" || s === "transcribing" || s === "searching";

const TONE: Record<string, string> = { ready: "ok", completed: "ok", failed: "off", awaiting_upload: "pending" };

export function StatusBadge({ status, label }: { status: string; label: string }) {
  return <span className={`badge badge-${TONE[status] ?? "run"}`}>{label}</span>;
}

/**
 * A progress bar with its words: a native <progress> (role progressbar, its value read out) named
 * by `label`, and the stage and percent as text beside it for those who read rather than look.
 * Without a percent (a job this page did not start) the bar is indeterminate.
 */
export function ProgressBar({ label, percent, text }: { label: string; percent?: number; text?: string }) {
  const p = percent === undefined ? undefined : Math.max(0, Math.min(100, Math.round(percent)));
  return (
    <div className="progress">
      <progress className="meter" max={100} value={p} aria-label={label} />
      <span className="progress-text">
        {/* A note that already says its percent ("… 69%") is not followed by the same number again. */}
        {[text, p === undefined || text?.includes(`${p}%`) ? "" : `${p}%`].filter(Boolean).join(" · ")}
      </span>
    </div>
  );
}

const CONTENT: Record<string, string> = { podcast: "Podcast", stream: "Stream", other: "Other" };

/** An episode's facts in one line: status (where asked), length, content type, clips, when made. */
export function EpisodeFacts({ episode: e, badge, kind }: { episode: Episode; badge?: boolean; kind?: boolean }) {
  return (
    <p className="episode-meta">
      {badge && <StatusBadge status={e.status} label={episodeStatusWords(e)} />}
      {e.duration && <span>{e.duration}</span>}
      {kind && e.content_type && <span>{CONTENT[e.content_type] ?? e.content_type}</span>}
      <span>
        {e.clips.length} clip{e.clips.length === 1 ? "" : "s"}
      </span>
      {e.created_at && <span>{when(e.created_at)}</span>}
    </p>
  );
}

/**
 * An episode's stage and note in plain words, once: "Transcribing: transcribing: 3 of 9" becomes
 * "Transcribing: 3 of 9" (a note that starts with its own stage's name drops it).
 */
export function stageWords(stage: string, note?: string | null): string {
  const n = (note ?? "").trim();
  if (!n) return stage;
  const rest = n.toLowerCase().startsWith(stage.toLowerCase()) ? n.slice(stage.length).replace(/^[\s:·–-]+/, "") : n;
  return rest ? `${stage}: ${rest}` : stage;
}
