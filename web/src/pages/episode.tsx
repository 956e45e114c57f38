/**
 * One episode as a workspace: status with live progress in plain words (GET /episodes/{id} every
 * 2 s while it runs or a clip is being made; not while the tab is hidden), Stop and Delete, and
 * two sides: the clips (large tiles, sorted and narrowed, each made clip inside its own tile, and
 * "Cut and style" once a clip is chosen) and the source player with the waveform and the
 * searchable transcript, kept in view beside them. On a phone the two sides are tabs. An episode
 * still waiting for its file offers to finish the upload (resume-upload.tsx).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ApiError, call, messageOf } from "../api";
import { Link, navigate } from "../router";
import { ClipRail } from "../studio/clip-rail";
import { CutPanel } from "../studio/cut-panel";
import { FindMore } from "../studio/find-more";
import { MadeClip } from "../studio/made-clip";
import { Playhead } from "../studio/playhead";
import { SourcePlayer, type PlayerHandle } from "../studio/source-player";
import { EpisodeActions } from "../studio/episode-actions";
import { ResumeUpload } from "../studio/resume-upload";
import { EpisodeFacts, episodeStatusWords, isRunning, ProgressBar, StatusBadge } from "../studio/status";
import { piecesOf, ranked } from "../studio/timeline";
import { useNarrow } from "../studio/use-narrow";
import { useProgressWords } from "../studio/use-progress-words";
import { Transcript } from "../studio/transcript";
import { useJobs } from "../studio/use-jobs";
import { usePoll } from "../studio/use-poll";
import { Waveform } from "../studio/waveform";
import type { CaptionStyle, Clip, ClipLook, Episode, EpisodeMedia } from "../types";
import { ErrorText, handler, useTitle } from "../ui";
import "../studio/studio.css";
import "../studio/workspace.css";

const path = (id: string, rest = "") => `/episodes/${encodeURIComponent(id)}${rest}`;
const making = (c: Clip) => c.cut_status === "cutting" || c.export_status === "rendering";

export default function EpisodePage({ id }: { id: string }) {
  const [episode, setEpisode] = useState<Episode | null>(null);
  const [error, setError] = useState<{ status: number; message: string } | null>(null);
  const [media, setMedia] = useState<EpisodeMedia | null>(null);
  const [mediaError, setMediaError] = useState<string | null>(null);
  const [styles, setStyles] = useState<CaptionStyle[]>([]);
  const [defaults, setDefaults] = useState<ClipLook | null>(null);
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [previewing, setPreviewing] = useState<string | null>(null);
  const player = useRef<PlayerHandle>(null);
  const playhead = useMemo(() => new Playhead(), []);
  const narrow = useNarrow();
  const [tab, setTab] = useState<"clips" | "source">("clips");
  const words = useProgressWords(episode);
  useTitle(episode?.name ?? "Episode");

  const load = useCallback(async () => {
    try {
      setEpisode(await call<Episode>("GET", path(id)));
      setError(null);
    } catch (err) {
      setError({ status: err instanceof ApiError ? err.status : 0, message: messageOf(err) });
    }
  }, [id]);
  const [mediaAsked, setMediaAsked] = useState(false);
  const mediaCall = useRef<Promise<unknown> | null>(null);
  const loadMedia = useCallback(() => {
    mediaCall.current ??= call<EpisodeMedia>("GET", path(id, "/media"))
      .then(
        (m) => (setMedia(m), setMediaError(null)),
        // not_ready: the source is not stored yet; the next status change asks again.
        (err) => setMediaError(err instanceof ApiError && err.code === "not_ready" ? null : messageOf(err)),
      )
      .finally(() => ((mediaCall.current = null), setMediaAsked(true)));
  }, [id]);
  const { jobs, add } = useJobs(handler(load));

  useEffect(() => {
    // The player's link is asked for with the episode, not after it, so the page appears whole.
    void load();
    loadMedia();
    call<{ styles: CaptionStyle[] }>("GET", "/styles").then(
      (s) => setStyles(s.styles),
      () => {},
    );
    call<{ defaults: ClipLook }>("GET", "/me").then(
      (m) => setDefaults(m.defaults),
      () => {},
    );
  }, [load, loadMedia]);
  const status = episode?.status;
  const hasSource = status === "transcribing" || status === "searching" || status === "ready";
  useEffect(() => {
    if (hasSource && !media) loadMedia();
  }, [hasSource, status, media, loadMedia]);
  const clipCount = episode?.clips.length ?? 0;
  useEffect(() => {
    // New clips (a finished search) need their pieces: the media answer carries them.
    if (hasSource && media && clipCount > (media.clips?.length ?? clipCount)) loadMedia();
  }, [clipCount, hasSource, media, loadMedia]);
  usePoll(load, !!episode && (isRunning(episode.status) || episode.clips.some(making)));

  const pieces = useMemo(() => new Map((media?.clips ?? []).map((c) => [c.clip_id, c.pieces])), [media]);
  const piecesFor = useCallback((c: Clip) => piecesOf(c, pieces.get(c.clip_id)), [pieces]);
  const playFrom = useCallback((s: number) => player.current?.playFrom(s), []);

  if (!episode || (hasSource && !media && !mediaAsked))
    return (
      <>
        <h1>{error?.status === 404 ? "Episode not found" : "Episode"}</h1>
        <ErrorText error={error?.message ?? null} />
        {error ? <Link href="/episodes">All episodes</Link> : <p className="loading">Loading the episode…</p>}
      </>
    );

  const e = episode;
  const ready = e.status === "ready";
  const best = ranked(e.clips);
  const duration = e.duration_seconds ?? media?.duration_seconds ?? null;
  const isVideo = media ? (media.source.kind ?? (media.source.type.startsWith("video/") ? "video" : "audio")) : null;
  const chosenNumbers = best.filter((c) => chosen.has(c.clip_id)).map((c) => c.number);
  const choose = (cid: string, on: boolean) =>
    setChosen((old) => (on ? new Set(old).add(cid) : new Set([...old].filter((x) => x !== cid))));
  const madeOf = (c: Clip) =>
    jobs.has(c.clip_id) || c.download_url || making(c) ? (
      <MadeClip
        episodeId={id}
        clip={c}
        job={jobs.get(c.clip_id)}
        styles={styles}
        onRestyled={(a) => add([{ job_id: a.job_id, clip_id: a.clip_id, kind: "render", status: a.status }])}
      />
    ) : null;
  // On a phone the two sides are tabs; from 960 px both show side by side.
  const panel = (which: "clips" | "source") =>
    narrow ? { role: "tabpanel", id: `ws-${which}`, "aria-labelledby": `ws-tab-${which}`, hidden: tab !== which } : {};
  return (
    <>
      <p className="crumbs">
        <Link href="/episodes">Episodes</Link>
      </p>
      <div className="page-head">
        <h1>{e.name}</h1>
        <StatusBadge status={e.status} label={episodeStatusWords(e)} />
        <EpisodeActions episode={e} onCancelled={handler(load)} onDeleted={() => navigate("/episodes")} />
      </div>
      <EpisodeFacts episode={e} kind />
      <ErrorText error={error?.message ?? null} />
      <div className="status-line" aria-live="polite">
        {isRunning(e.status) && <ProgressBar label="Episode progress" percent={e.progress.percent} text={words} />}
      </div>
      {e.status === "failed" && (
        <p role="alert" className="alert alert-error">
          {e.failure?.message ?? "This episode failed."}
        </p>
      )}
      {e.status === "awaiting_upload" && <ResumeUpload episodeId={id} onStarted={handler(load)} />}
      {narrow && (
        <div className="ws-tabs" role="tablist" aria-label="Workspace">
          {(["clips", "source"] as const).map((w) => (
            <button
              key={w}
              type="button"
              role="tab"
              id={`ws-tab-${w}`}
              aria-controls={`ws-${w}`}
              aria-selected={tab === w}
              tabIndex={tab === w ? 0 : -1}
              onClick={() => setTab(w)}
              onKeyDown={(k) => {
                if (k.key !== "ArrowLeft" && k.key !== "ArrowRight") return;
                const other = w === "clips" ? "source" : "clips";
                setTab(other);
                document.getElementById(`ws-tab-${other}`)?.focus();
              }}
            >
              {w === "clips" ? `Clips (${e.clips.length})` : "Source and transcript"}
            </button>
          ))}
        </div>
      )}
      <div className="workspace">
        <div className="ws-clips" {...panel("clips")}>
          <section aria-labelledby="clips-h">
            <h2 id="clips-h">Clips</h2>
            <FindMore
              episodeId={id}
              clips={e.clips}
              ready={ready}
              searching={e.status === "searching"}
              onStarted={load}
            />
            <ClipRail
              episodeId={id}
              clips={e.clips}
              piecesOf={piecesFor}
              videoUrl={isVideo === "video" && media ? media.source.url : null}
              chosen={chosen}
              onChoose={choose}
              previewing={previewing}
              canPreview={!!media}
              onPreview={(c) => player.current?.preview(c.clip_id, piecesFor(c), c.title)}
              onStop={() => player.current?.stop()}
              madeOf={madeOf}
            />
          </section>
          {chosenNumbers.length > 0 ? (
            <section className="card cut-card" aria-labelledby="cut-h">
              <CutPanel
                episodeId={id}
                styles={styles}
                defaults={defaults}
                chosen={chosenNumbers}
                ready={ready}
                onStarted={(j) => (add(j), setChosen(new Set()), void load())}
              />
            </section>
          ) : (
            e.clips.length > 0 && <p className="hint cut-hint">Choose clips above to cut and style them.</p>
          )}
          {chosenNumbers.length > 0 && (
            <p className="chosen-bar">
              {chosenNumbers.length} chosen · <a href="#cut-h">Cut and style</a>
            </p>
          )}
        </div>
        <div className="ws-source" {...panel("source")}>
          <section className="stage" aria-labelledby="source-h">
            <h2 id="source-h">Source</h2>
            {media ? (
              <SourcePlayer
                ref={player}
                media={media}
                title={e.name}
                playhead={playhead}
                onPreviewing={setPreviewing}
                onExpired={loadMedia}
              />
            ) : (
              <div className="player-wait">
                {mediaError ? (
                  <p role="alert">{mediaError}</p>
                ) : (
                  <p>{hasSource ? "Loading the player…" : "The player appears once the source is imported."}</p>
                )}
              </div>
            )}
            {hasSource && (
              <Waveform
                episodeId={id}
                duration={duration}
                clips={e.clips}
                piecesOf={piecesFor}
                playhead={playhead}
                onPlay={playFrom}
              />
            )}
          </section>
          <section className="ws-transcript" aria-labelledby="transcript-h">
            <h2 id="transcript-h">Transcript</h2>
            <Transcript
              episodeId={id}
              playhead={playhead}
              onPlay={playFrom}
              ready={e.status === "searching" || ready}
            />
          </section>
        </div>
      </div>
    </>
  );
}
