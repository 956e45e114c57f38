/**
 * /free/{id}?token=…: a free transcription's result, polled (GET /transcribe/{id}?token=…) every 2 s,
 * or what the answer's poll_after_seconds asks, while it runs. Then the text with TXT, SRT and VTT
 * (inline answers become files here; big ones come as links) with a player of the kept recording
 * while its link lasts (a click on a line plays from there), or the refusal in plain words.
 */
import { useMemo } from "react";
import { ApiError } from "../api";
import { Link, useLocation } from "../router";
import type { FreePoll } from "../types";
import { Notice, useTitle } from "../ui";
import { pollFree, refusalOf } from "./free-calls";
import { freeLimitsOf, freeRefusalText } from "./free-refusals";
import { useSession } from "../session";
import { facts } from "./results";
import { usePoll } from "./results-poll";
import { ResultsView, type ResultsData } from "./results-view";
import "./free.css";

function resultsOf(p: FreePoll): ResultsData {
  // A big result comes as three links and no inline text: the page then shows the links only.
  const big = p.text === undefined && Boolean(p.text_url);
  return {
    name: "transcript",
    text: big ? undefined : (p.text ?? ""),
    downloads: { txt: p.text_url, srt: p.srt_url, vtt: p.vtt_url },
    inline: big ? undefined : { srt: p.srt, vtt: p.vtt },
    // The recording is kept free.audio_retention_days: until then the lines play from it.
    media: p.audio_url ? { url: p.audio_url } : null,
  };
}

export default function FreeResultPage({ id }: { id: string }) {
  const L = freeLimitsOf(useSession().session);
  useTitle("Free transcript");
  const token = useLocation().query.get("token") ?? "";
  const { data: p, error } = usePoll(
    () => pollFree(id, token),
    (x) => (x.status === "processing" ? (x.poll_after_seconds ?? 2) * 1000 : null),
    [id, token],
  );
  const view = useMemo(() => (p?.status === "completed" ? resultsOf(p) : null), [p]);
  const gone = error instanceof ApiError && error.status === 404;
  const refusal =
    p?.status === "failed"
      ? freeRefusalText(p.error ?? { code: "failed" })
      : error && (gone || !p)
        ? freeRefusalText(refusalOf(error))
        : null;
  return (
    <>
      <h1>Free transcript</h1>
      <p className="back">
        <Link href="/free">Transcribe another recording</Link>
      </p>
      <div role="alert" className={refusal ? "alert alert-error" : "alert-empty"}>
        {refusal}
      </div>
      {!p && !error && <p className="loading">Loading…</p>}
      {p?.status === "processing" && (
        <div className="free-status">
          <span className="badge badge-pending">Transcribing</span>
          <progress aria-label="Transcription progress" />
          <span>{p.elapsed_seconds !== undefined ? `${p.elapsed_seconds} s so far` : ""}</span>
        </div>
      )}
      {p?.status === "completed" && (
        <>
          <p className="hint facts-line">{facts(p)}</p>
          {p.code === "no_speech" && <Notice kind="warn">{freeRefusalText({ code: "no_speech" })}</Notice>}
          {p.language_note && <Notice kind="warn">{p.language_note}</Notice>}
          {p.note && <Notice>{p.note}</Notice>}
          {view && <ResultsView data={view} />}
        </>
      )}
      <p className="hint">
        The recording is deleted after {L.audioDays} days and the text after {L.textDays} days: download what you want
        to keep.
      </p>
    </>
  );
}
