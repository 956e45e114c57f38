/**
 * /transcripts/{id}: a transcript's status with its progress (GET /transcripts/{id}, every 2 s while
 * it runs), then its results: through its results link (GET /results/{token}, which adds the
 * recording for the synced player) when the transcript's page link is one, else its own text and
 * downloads.
 */
import { call, messageOf } from "../api";
import { Link } from "../router";
import type { Transcript } from "../types";
import { ErrorText, useTitle } from "../ui";
import { facts, loadResults, resultsData, resultsToken } from "./results";
import { usePoll } from "./results-poll";
import { ResultsView } from "./results-view";
import "./transcripts.css";

const RUNNING = new Set(["queued", "running"]);

export default function TranscriptPage({ id }: { id: string }) {
  const { data: t, error } = usePoll(
    () => call<Transcript>("GET", `/transcripts/${encodeURIComponent(id)}`),
    (x) => (RUNNING.has(x.status) ? 2000 : null),
    [id],
  );
  useTitle(t?.name ?? "Transcript");
  return (
    <>
      <h1>{t?.name ?? "Transcript"}</h1>
      <p className="back">
        <Link href="/transcripts">All transcripts</Link>
      </p>
      <ErrorText
        error={
          error ? messageOf(error) : t?.status === "failed" ? (t.error?.message ?? "The transcript failed.") : null
        }
      />
      {!t ? !error && <p className="loading">Loading the transcript…</p> : <Status t={t} />}
      {t?.status === "completed" && <Results t={t} />}
    </>
  );
}

function Status({ t }: { t: Transcript }) {
  if (RUNNING.has(t.status)) {
    const pct = Math.max(0, Math.min(100, Math.round(t.progress)));
    return (
      <div className="status-line">
        <span className="badge badge-pending">{t.status === "queued" ? "Queued" : "Transcribing"}</span>
        <progress className="status-bar" aria-label="Transcript progress" max={100} value={pct} />
        <span aria-live="polite">{pct}%</span>
      </div>
    );
  }
  return (
    <div className="status-line">
      <span className={`badge ${t.status === "completed" ? "badge-ok" : "badge-failed"}`}>
        {t.status === "completed" ? "Completed" : "Failed"}
      </span>
      <span className="hint">{t.status === "completed" ? facts(t) : ""}</span>
      {t.status === "completed" && t.downloads.page && (
        <a href={t.downloads.page} className="results-link">
          Results page
        </a>
      )}
    </div>
  );
}

function Results({ t }: { t: Transcript }) {
  const token = resultsToken(t.downloads.page);
  const { data, error } = usePoll(
    () => (token ? loadResults(token) : Promise.resolve(null)),
    () => null,
    [token],
  );
  if (token && !data && !error) return <p className="loading">Loading the results…</p>;
  const view = data
    ? resultsData(data)
    : {
        name: t.name,
        text: t.text ?? "",
        downloads: { txt: t.downloads.txt, srt: t.downloads.srt, vtt: t.downloads.vtt },
        media: null,
      };
  return <ResultsView data={view} />;
}
