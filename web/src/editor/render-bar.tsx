/**
 * Under the preview: Undo and Redo, Render, and where the render stands. Render waits while the
 * preview shows a problem (the server would refuse the same body); a render the server refuses
 * anyway is said here, in plain words, and the editor with its unsaved edits stays as it was.
 */
import type { Job } from "../types";

interface Props {
  edits: { canUndo: boolean; canRedo: boolean; undo(): void; redo(): void };
  job: Job | null;
  busy: boolean;
  changes: number;
  previewError: string | null;
  renderError: string | null;
  onRender(): void;
}

export function RenderBar({ edits, job, busy, changes, previewError, renderError, onRender }: Props) {
  const running = !!job && job.status !== "completed" && job.status !== "failed";
  const state = previewError
    ? "Not ready to render."
    : running
      ? "Rendering…"
      : job?.status === "completed"
        ? "Rendered."
        : job?.status === "failed"
          ? `The render failed: ${job.error?.message ?? "no reason given"}`
          : changes
            ? "Unsaved changes."
            : "No changes yet.";
  return (
    <div className="ed-render">
      <button type="button" className="small secondary" disabled={!edits.canUndo} onClick={edits.undo}>
        Undo
      </button>
      <button type="button" className="small secondary" disabled={!edits.canRedo} onClick={edits.redo}>
        Redo
      </button>
      <button
        type="button"
        className="primary"
        disabled={busy || running || !changes || !!previewError}
        aria-describedby={previewError ? "ed-preview-problem" : undefined}
        onClick={onRender}
      >
        Render
      </button>{" "}
      <span className="hint" aria-live="polite">
        {state}
      </span>
      {renderError && (
        <p role="alert" className="ed-refusal">
          {renderError}
        </p>
      )}
      {running && (
        <progress aria-label="Render progress" max={100} value={job.progress ?? 0}>
          {job.progress ?? 0}%
        </progress>
      )}
    </div>
  );
}
