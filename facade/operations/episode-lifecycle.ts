/**
 * Cancelling and deleting an episode (/api/v1/episodes/{id}/cancel, DELETE /api/v1/episodes/{id}):
 * beyond the published contract, so each says so in OpenAPI (`x-extension`). The service does the
 * work (daemon/account/episode-lifecycle.ts); test keys get the sample's answers and change nothing.
 */
import { EpisodeService } from "../../daemon/account/episodes.js";
import { ApiError } from "../errors.js";
import { defineOperation, uuidParam } from "../registry.js";
import { loadTestFixtures } from "../testmode.js";
import { S } from "./_account-schemas.js";
import { _authOf, _notFound } from "./_account-testmode.js";

const tags = ["episodes"];

/** A test key's sample episode is ready: there is nothing to cancel or delete, and nothing changes. */
function sample(id: string): string {
  const sampleId = loadTestFixtures().episode.episode_id;
  if (id.toLowerCase() !== sampleId) throw _notFound("episode", id);
  return sampleId;
}

export const cancelEpisode = defineOperation({
  id: "cancelEpisode",
  method: "POST",
  path: "/api/v1/episodes/{id}/cancel",
  summary: "Cancel an episode still being made (awaiting its upload, importing or searching)",
  scope: "clips.write",
  tags,
  params: { id: uuidParam },
  // A retried cancel with the same key gets the first answer back, not a 409 for the state it made.
  idempotent: true,
  extension: "not in the published contract: stops an episode's import or clip search",
  responses: {
    200: { description: "Cancelled: the episode is failed with code cancelled", schema: S.episodeCancelled },
    404: { description: "Not on this account" },
    409: { description: "episode_not_cancellable: it is ready or failed already" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const id = ctx.params.id;
    const refuse = (status: string) =>
      new ApiError(409, "episode_not_cancellable", `episode ${id} is ${status}; only work in progress is cancelled`, {
        status,
      });
    if (!auth.livemode) {
      sample(id);
      throw refuse("ready");
    }
    const before = await ctx.services.episodes.get(auth.account.id, id);
    if (!before) throw _notFound("episode", id);
    if (before.status === "ready" || before.status === "failed") throw refuse(before.status);
    const { episode, cancelled } = await ctx.services.episodes.lifecycle.cancel(auth.account.id, id);
    if (!cancelled && episode.failure?.code !== "cancelled") throw refuse(EpisodeService.publicStatus(episode));
    const charged = episode.charged_cents > 0;
    return {
      episode_id: id,
      status: EpisodeService.publicStatus(episode),
      ...(episode.failure ? { failure: episode.failure } : {}),
      charged_cents: episode.charged_cents,
      message: charged
        ? `cancelled during its clip search; the episode was charged ${episode.charged_cents} cents ` +
          "when that search started"
        : "cancelled before its clip search started: nothing was charged",
      livemode: true,
    };
  },
});

export const deleteEpisode = defineOperation({
  id: "deleteEpisode",
  method: "DELETE",
  path: "/api/v1/episodes/{id}",
  summary: "Delete an episode with its clips, jobs and stored files (work in progress is cancelled first)",
  scope: "clips.write",
  tags,
  params: { id: uuidParam },
  extension: "not in the published contract: removes an episode and its files",
  responses: {
    200: { description: "Deleted", schema: S.episodeDeleted },
    404: { description: "Not on this account (or deleted already)" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const id = ctx.params.id;
    if (!auth.livemode)
      return {
        episode_id: sample(id),
        deleted: false,
        message: "test mode: the sample episode stays; a live key's episode would be gone with its files",
        livemode: false,
      };
    const r = await ctx.services.episodes.lifecycle.remove(auth.account.id, id);
    return {
      episode_id: r.episode_id,
      deleted: true,
      message: "deleted with its clips, jobs and stored files; its download links no longer work",
      livemode: true,
    };
  },
});
