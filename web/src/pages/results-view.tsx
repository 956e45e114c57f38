/**
 * A transcript's results, shared by /r/{token}, /transcripts/{id} and the free result: the
 * downloads, a player whose current line is lit as it plays (a click on a line plays from there),
 * and the text. Without a media link there is no player: the text and the downloads only. The
 * lines come from the VTT (inline, or fetched from its download link); when it cannot be read the
 * plain text is shown instead.
 */
import { useEffect, useMemo, useRef, useState } from "react";
import "./results.css";
import { clock, cueAt, parseVtt, type Cue } from "./results-cues";

export interface ResultsData {
  name?: string;
  /** The plain text; undefined when only download links exist (a big free result). */
  text?: string;
  /** Download links (signed), or inline contents turned into file links here. */
  downloads: { txt?: string; srt?: string; vtt?: string };
  inline?: { srt?: string; vtt?: string };
  /** Timed lines the server already gave (the results answer's segments); else the VTT is read. */
  cues?: Cue[];
  media?: { url: string; type?: string } | null;
}

const KINDS = [
  { key: "txt", label: "TXT", type: "text/plain" },
  { key: "srt", label: "SRT", type: "application/x-subrip" },
  { key: "vtt", label: "VTT", type: "text/vtt" },
] as const;

export function ResultsView({ data }: { data: ResultsData }) {
  const cues = useCues(data);
  const links = useDownloadLinks(data);
  const base = (data.name || "transcript").replace(/[^\w.-]+/g, "_").slice(0, 80);
  return (
    <div className="results">
      <section aria-labelledby="dl-h" className="results-downloads">
        <h2 id="dl-h">Downloads</h2>
        <div className="actions">
          {KINDS.map((k) =>
            links[k.key] ? (
              <a key={k.key} className="button secondary" href={links[k.key]} download={`${base}.${k.key}`}>
                Download {k.label}
              </a>
            ) : null,
          )}
        </div>
      </section>
      {data.media ? (
        <SyncedPlayer media={data.media} cues={cues} text={data.text ?? ""} />
      ) : (
        data.text !== undefined && <PlainText text={data.text} />
      )}
    </div>
  );
}

/** The timed lines: as given, parsed from an inline VTT, or fetched once from the VTT's download link. */
function useCues(data: ResultsData): Cue[] | null {
  const [cues, setCues] = useState<Cue[] | null>(
    () => data.cues ?? (data.inline?.vtt !== undefined ? parseVtt(data.inline.vtt) : null),
  );
  const url = !data.cues && data.inline?.vtt === undefined && data.media ? data.downloads.vtt : undefined;
  useEffect(() => {
    if (!url) return;
    const ctrl = new AbortController();
    fetch(url, { signal: ctrl.signal, credentials: "omit" })
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(String(r.status)))))
      .then((t) => setCues(parseVtt(t)))
      .catch(() => !ctrl.signal.aborted && setCues([]));
    return () => ctrl.abort();
  }, [url]);
  return cues;
}

/** Links for the three files: the signed ones as given, inline contents as blob: links. */
function useDownloadLinks(data: ResultsData): Partial<Record<"txt" | "srt" | "vtt", string>> {
  const { txt, srt, vtt } = data.downloads;
  const inline = data.inline;
  const made = useMemo(() => {
    const blobs: Partial<Record<"txt" | "srt" | "vtt", string>> = {};
    if (!txt && inline && data.text !== undefined)
      blobs.txt = URL.createObjectURL(new Blob([data.text], { type: "text/plain;charset=utf-8" }));
    if (!srt && inline?.srt !== undefined)
      blobs.srt = URL.createObjectURL(new Blob([inline.srt], { type: "application/x-subrip;charset=utf-8" }));
    if (!vtt && inline?.vtt !== undefined)
      blobs.vtt = URL.createObjectURL(new Blob([inline.vtt], { type: "text/vtt;charset=utf-8" }));
    return blobs;
  }, [txt, srt, vtt, inline, data.text]);
  useEffect(() => () => Object.values(made).forEach((u) => URL.revokeObjectURL(u)), [made]);
  return { txt: txt ?? made.txt, srt: srt ?? made.srt, vtt: vtt ?? made.vtt };
}

function PlainText({ text }: { text: string }) {
  return (
    <section aria-labelledby="text-h">
      <h2 id="text-h">Text</h2>
      <div className="results-text" tabIndex={0}>
        {text ? text.split(/\n{2,}/).map((p, i) => <p key={i}>{p}</p>) : <p className="hint">No text.</p>}
      </div>
    </section>
  );
}

function SyncedPlayer({
  media,
  cues,
  text,
}: {
  media: { url: string; type?: string };
  cues: Cue[] | null;
  text: string;
}) {
  const player = useRef<HTMLMediaElement | null>(null);
  const list = useRef<HTMLOListElement>(null);
  const [current, setCurrent] = useState(-1);
  const video = (media.type ?? "").startsWith("video/");

  function onTime() {
    const t = player.current?.currentTime ?? 0;
    const i = cues ? cueAt(cues, t) : -1;
    if (i !== current) setCurrent(i);
  }
  // Keep the lit line in view inside the list only, never scrolling the page under the reader.
  useEffect(() => {
    const box = list.current;
    const el = box?.querySelector<HTMLElement>(`[data-cue="${current}"]`);
    if (!box || !el) return;
    if (el.offsetTop < box.scrollTop || el.offsetTop + el.offsetHeight > box.scrollTop + box.clientHeight)
      box.scrollTop = el.offsetTop - box.clientHeight / 3;
  }, [current]);
  function seek(c: Cue) {
    const p = player.current;
    if (!p) return;
    p.currentTime = c.start;
    void p.play().catch(() => {});
  }

  const props = {
    ref: (el: HTMLMediaElement | null) => void (player.current = el),
    src: media.url,
    controls: true,
    preload: "metadata",
    onTimeUpdate: onTime,
    onSeeked: onTime,
    className: "results-player",
  };
  return (
    <section aria-labelledby="play-h" className={video ? "results-sync is-video" : "results-sync"}>
      <h2 id="play-h">Listen and read</h2>
      {video ? <video {...props} playsInline aria-label="Recording" /> : <audio {...props} aria-label="Recording" />}
      {cues === null ? (
        <p className="loading">Loading the lines…</p>
      ) : cues.length === 0 ? (
        <PlainText text={text} />
      ) : (
        <ol className="cues" ref={list} aria-label="Transcript lines">
          {cues.map((c, i) => (
            <li key={i} data-cue={i}>
              <button
                type="button"
                className={i === current ? "cue is-current" : "cue"}
                aria-current={i === current ? "true" : undefined}
                onClick={() => seek(c)}
              >
                <span className="cue-time">{clock(c.start)}</span>
                <span className="cue-text">{c.text}</span>
              </button>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
