/**
 * The upload's face: a <progress> bar named "Upload progress", bytes sent of the total, speed and
 * time left, what is happening in words, and the Cancel upload / Resume upload buttons. Every line
 * keeps its height whether filled or not, so nothing below jumps while the numbers change.
 */
import "./upload.css";
import { formatBytes, formatTimeLeft } from "./plan";
import type { UploadHandle } from "./useUpload";

const WORDS: Record<string, string> = {
  idle: "",
  uploading: "Uploading…",
  retrying: "Waiting to try again…",
  paused: "Upload paused.",
  cancelled: "Upload cancelled. What was sent is kept until the link expires: Resume upload goes on from there.",
  done: "Upload complete.",
  failed: "Upload failed.",
};

export function UploadProgress({ upload }: { upload: UploadHandle }) {
  const { state: s, busy } = upload;
  if (s.phase === "idle") return null;
  const pct = s.total ? Math.floor((s.sent / s.total) * 100) : 0;
  const stats = [`${formatBytes(s.sent)} of ${formatBytes(s.total)}`];
  if (s.bytesPerSecond !== null) stats.push(`${formatBytes(Math.round(s.bytesPerSecond))}/s`);
  const left = formatTimeLeft(s.secondsLeft);
  if (left && busy) stats.push(left);
  const alert = s.phase === "failed" || s.phase === "paused" ? s.error : null;
  const note = s.phase === "retrying" ? s.error : WORDS[s.phase];
  return (
    <div className="upload" role="group" aria-label={`Upload of ${s.fileName}`}>
      <div className="upload-line">
        <span className="upload-name" title={s.fileName}>
          {s.fileName}
        </span>
        <span className="upload-pct">{pct}%</span>
      </div>
      <progress className="upload-bar" aria-label="Upload progress" max={s.total || 1} value={s.sent} />
      <p className="upload-stats">{stats.join(" · ")}</p>
      <p className="upload-note" aria-live="polite">
        {note}
      </p>
      <div role="alert" className={alert ? "alert alert-error" : "alert-empty"}>
        {alert}
      </div>
      <div className="upload-actions">
        {busy && (
          <button type="button" className="secondary" onClick={upload.cancel}>
            Cancel upload
          </button>
        )}
        {!busy && s.canResume && (s.phase === "paused" || s.phase === "cancelled") && (
          <button type="button" onClick={() => void upload.resume()}>
            Resume upload
          </button>
        )}
      </div>
    </div>
  );
}
