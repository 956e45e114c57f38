/**
 * Clip searches of an episode: a brief searched again (answered from the clips it found before),
 * and the search run started after an import ends. Split from episodes.ts so the brief matching
 * lives in one place; the run's end is handled in episode-run-ends.ts.
 */
import { Conflict } from "../domain/errors.js";
import { transactionWith, type Queryable, type Within } from "../store/db.js";
import { clipsOf, lockEpisode, PIPELINES, type ClipRow, type EpisodeDeps, type EpisodeRow } from "./episode-rows.js";
import type { AccountSurface } from "./surfaces.js";

export type SearchResult = { status: "searching" | "done"; clips: ClipRow[]; run_id?: string };

export class EpisodeSearch {
  constructor(private readonly deps: EpisodeDeps) {}

  /**
   * Starts a search for more clips about `about`. The same brief searched before answers "done"
   * with its clips and starts nothing. With no `about`, the episode is searched again with its own
   * options, for clips it does not have yet. Searches after the first are free.
   */
  async search(
    accountId: string,
    id: string,
    input: { about?: string; target_seconds?: number; origin: AccountSurface },
    within?: Within<SearchResult>,
  ): Promise<SearchResult> {
    return transactionWith(
      this.deps.db,
      async (tx) => {
        const ep = await lockEpisode(tx, accountId, id);
        if (ep.status === "searching")
          throw new Conflict(
            "search_in_progress",
            `episode ${id} is searching for clips already; retry when it is ready`,
          );
        if (ep.status !== "ready")
          throw new Conflict(
            "episode_not_ready",
            `episode ${id} is ${ep.status}; it can be searched once it is ready`,
            { context: { status: ep.status } },
          );
        const about = input.about?.trim() || undefined;
        const done =
          about !== undefined &&
          ep.searches.find(
            (s) =>
              s.about === about &&
              s.state === "succeeded" &&
              // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
              (input.target_seconds === undefined || (s as any).target_seconds === input.target_seconds),
          );
        const clips = await clipsOf(tx, id);
        if (done) return { status: "done" as const, clips: answersTo(clips, about!) };
        await this.deps.billing.assertNotBelowZero(tx, accountId);
        const runId = await this.startSearch(
          tx,
          ep,
          {
            about: about ?? ep.options.about,
            target_seconds: input.target_seconds ?? ep.options.target_seconds,
            origin: input.origin,
          },
          clips.map((c) => c.data),
        );
        return { status: "searching" as const, clips: [], run_id: runId };
      },
      within,
    );
  }

  /** Starts a clip search run (also called by episode-run-ends.ts when an import ends). */
  async startSearch(
    tx: Queryable,
    ep: EpisodeRow,
    opts: { about?: string; target_seconds?: number; origin: AccountSurface },
    existing: unknown[],
  ): Promise<string> {
    const set: Record<string, unknown> = {};
    if (ep.options.content_type) set.content_type = ep.options.content_type;
    if (opts.target_seconds) set.target_seconds = opts.target_seconds;
    if (opts.about) set.about = opts.about;
    const run = await this.deps.runner.startRun(
      PIPELINES.search,
      { ...ep.state, clips: existing, account_id: ep.account_id, livemode: true, episode_id: ep.id },
      { tx, origin: opts.origin, originRef: `search:${ep.id}`, set },
    );
    const searches = [
      ...ep.searches,
      { about: opts.about ?? null, target_seconds: opts.target_seconds, run_id: run.id, state: "running" },
    ];
    await tx.query(
      `update episodes set status = 'searching', search_run_id = $2, searches = $3, updated_at = now() where id = $1`,
      [ep.id, run.id, JSON.stringify(searches)],
    );
    return run.id;
  }
}

/**
 * The clips answering a brief, best first: those marked with it (a clip already listed when the
 * brief was searched keeps its number and ref), then those the brief found before answers were ranked.
 */
function answersTo(clips: ClipRow[], about: string): ClipRow[] {
  const rank = (c: ClipRow) => {
    const r = (c.data.answers as Array<{ about: string; rank: number }> | undefined)?.find(
      (a) => a.about === about,
    )?.rank;
    return r ?? (c.data.about === about ? 1000 + c.number : -1);
  };
  return clips.filter((c) => rank(c) >= 0).sort((a, b) => rank(a) - rank(b));
}
