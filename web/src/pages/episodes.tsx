/**
 * Episodes: the 10 most recent (GET /episodes), newest first, each with its status, progress while
 * it runs (polled every 2 s while any runs), the poster of its best clip and a link to its page,
 * and Stop (work in progress) and Delete on each, so an episode that never got its file does not stay.
 */
import { useCallback, useEffect, useState } from "react";
import { call } from "../api";
import { Link } from "../router";
import { EpisodeActions } from "../studio/episode-actions";
import { Poster } from "../studio/poster";
import { EPISODE_STATUS, EpisodeFacts, isRunning, ProgressBar, stageWords } from "../studio/status";
import { ranked } from "../studio/timeline";
import { usePoll } from "../studio/use-poll";
import type { Episode } from "../types";
import { ErrorText, useAction, useTitle } from "../ui";
import "../studio/studio.css";

export default function EpisodesPage() {
  useTitle("Episodes");
  const [episodes, setEpisodes] = useState<Episode[] | null>(null);
  const { error, run } = useAction();
  const load = useCallback(
    () => run(async () => setEpisodes((await call<{ episodes: Episode[] }>("GET", "/episodes")).episodes)),
    [run],
  );
  useEffect(() => void load(), [load]);
  usePoll(load, !!episodes?.some((e) => isRunning(e.status)));

  return (
    <>
      <div className="page-head">
        <h1>Episodes</h1>
        <Link href="/episodes/new" className="button-link">
          New episode
        </Link>
      </div>
      <p className="lead">
        Your 10 most recent episodes. clipd transcribes each one and finds the moments worth posting; open one to
        preview, cut and style its clips.
      </p>
      <ErrorText error={error} />
      {episodes === null ? (
        !error && <p className="loading">Loading episodes…</p>
      ) : episodes.length === 0 ? (
        <div className="card empty">
          <p>No episodes yet.</p>
          <p>
            <Link href="/episodes/new">Make your first episode</Link> from a link or a file.
          </p>
        </div>
      ) : (
        <ul className="episode-list" aria-label="Your episodes">
          {episodes.map((e) => (
            <EpisodeItem key={e.episode_id} episode={e} onChange={() => void load()} />
          ))}
        </ul>
      )}
    </>
  );
}

function EpisodeItem({ episode: e, onChange }: { episode: Episode; onChange: () => void }) {
  const top = ranked(e.clips)[0];
  const href = `/episodes/${encodeURIComponent(e.episode_id)}`;
  return (
    <li className="episode-item">
      <Poster clipId={top?.clip_id} title={top?.title} width={72} />
      <div className="episode-body">
        <h2 className="episode-name">
          <Link href={href}>{e.name}</Link>
        </h2>
        <EpisodeFacts episode={e} badge />
        {isRunning(e.status) && (
          <ProgressBar
            label={`Progress of ${e.name}`}
            percent={e.progress.percent}
            text={stageWords(EPISODE_STATUS[e.status], e.progress.note)}
          />
        )}
        {e.status === "awaiting_upload" && (
          <p className="episode-top">
            The file never arrived: <Link href={href}>finish the upload</Link> from its page, or delete it.
          </p>
        )}
        {e.status === "failed" && e.failure && <p className="fail-text">{e.failure.message}</p>}
        {top && <p className="episode-top">Best clip: {top.title}</p>}
        <EpisodeActions episode={e} onCancelled={onChange} onDeleted={onChange} />
      </div>
    </li>
  );
}
