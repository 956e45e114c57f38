/**
 * /r/{token}: a finished transcript behind a results link, for anyone holding the link (the `page`
 * link of a transcript and of transcript.completed): the text, a player synced to it when the
 * recording is kept, and TXT, SRT and VTT downloads.
 */
import { ApiError, call, messageOf } from "../api";
import type { ResultsAnswer } from "../types";
import { ErrorText, useTitle } from "../ui";
import { lengthWords } from "./free-refusals";
import { usePoll } from "./results-poll";
import { ResultsView, type ResultsData } from "./results-view";

/** The results token in a transcript's `downloads.page` link (…/r/<token>), or null. */
export function resultsToken(page: string | undefined): string | null {
  const m = /\/r\/([^/?#]+)$/.exec(page ?? "");
  return m ? m[1]! : null;
}

export function loadResults(token: string): Promise<ResultsAnswer> {
  return call<ResultsAnswer>("GET", `/results/${encodeURIComponent(token)}`);
}

export function resultsData(r: ResultsAnswer): ResultsData {
  const lines = r.segments?.segments;
  return {
    name: r.name ?? undefined,
    text: r.text ?? "",
    downloads: { txt: r.downloads?.txt, srt: r.downloads?.srt, vtt: r.downloads?.vtt },
    // A truncated list would stop the lit line part way: the full VTT is read instead.
    cues: lines?.length && !r.segments?.truncated ? lines : undefined,
    media: r.media ?? null,
  };
}

/** "4 minutes 2 seconds · 612 words · en": what the numbers say about a transcript. */
export function facts(r: {
  duration_seconds?: number | null;
  word_count?: number | null;
  language?: string | null;
}): string {
  const out: string[] = [];
  if (typeof r.duration_seconds === "number") out.push(lengthWords(r.duration_seconds));
  if (typeof r.word_count === "number") out.push(`${r.word_count} ${r.word_count === 1 ? "word" : "words"}`);
  if (r.language && r.language !== "und") out.push(`language: ${r.language}`);
  return out.join(" · ");
}

const RUNNING = new Set(["queued", "running"]);

function refusalText(error: unknown): string | null {
  if (!error) return null;
  if (error instanceof ApiError) {
    if (error.code === "link_expired")
      return "This results link has expired (they last 7 days). Open the transcript again for a new one.";
    if (error.code === "expired")
      return "This free transcript has been deleted: free texts are kept for a limited time.";
    if (error.status === 404) return "This results link is not valid: check that it was copied whole.";
  }
  return messageOf(error);
}

export default function ResultsPage({ token }: { token: string }) {
  const { data, error } = usePoll(
    () => loadResults(token),
    (r) => (RUNNING.has(r.status) ? 2000 : null),
    [token],
  );
  const name = data?.name || "Transcript";
  useTitle(name);
  return (
    <>
      <h1>{name}</h1>
      <p className="lead results-facts">{data ? facts(data) || "\u00a0" : "\u00a0"}</p>
      <ErrorText
        error={
          refusalText(error) ?? (data?.status === "failed" ? (data.error?.message ?? "This transcript failed.") : null)
        }
      />
      {!data && !error && <p className="loading">Loading the transcript…</p>}
      {data && RUNNING.has(data.status) && (
        <p className="loading">This transcript is still being made; the page shows it as soon as it is ready.</p>
      )}
      {data?.status === "completed" && <ResultsView data={resultsData(data)} />}
    </>
  );
}
