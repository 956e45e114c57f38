/**
 * Stop or delete an episode, from the list and from its page (POST /episodes/{id}/cancel, DELETE
 * /episodes/{id}). Work in progress can be cancelled (nothing is charged before the clip search
 * starts); any episode can be deleted with its clips and files, after a confirm().
 */
import { cancelEpisode, deleteEpisode } from "../api";
import type { Episode } from "../types";
import { ErrorText, handler, useAction } from "../ui";
import { isRunning } from "./status";

export function EpisodeActions({
  episode: e,
  onCancelled,
  onDeleted,
}: {
  episode: Pick<Episode, "episode_id" | "name" | "status">;
  onCancelled: () => void;
  onDeleted: () => void;
}) {
  const { busy, error, run } = useAction();
  async function cancel() {
    if (!window.confirm(`Stop “${e.name}”? The work done so far is dropped.`)) return;
    if (await run(() => cancelEpisode(e.episode_id))) onCancelled();
  }
  async function remove() {
    if (!window.confirm(`Delete “${e.name}” with its clips and files? This cannot be undone.`)) return;
    if (await run(() => deleteEpisode(e.episode_id))) onDeleted();
  }
  return (
    <div className="episode-actions">
      {isRunning(e.status) && (
        <button type="button" className="secondary small" onClick={handler(cancel)} disabled={busy}>
          Stop <span className="sr-only">{e.name}</span>
        </button>
      )}
      <button type="button" className="danger small" onClick={handler(remove)} disabled={busy}>
        Delete <span className="sr-only">{e.name}</span>
      </button>
      <ErrorText error={error} />
    </div>
  );
}
