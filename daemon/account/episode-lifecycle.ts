/**
 * The rest of an episode's life: its list a page at a time, cancelling one that is still being
 * made, and deleting one with its clips, jobs and stored files.
 *
 * Guarantees:
 * - A page is a keyset over (created_at desc, id): an episode made while a caller pages never
 *   shifts a later page, and no episode shows twice.
 * - Cancel ends the episode's current run through the runner (runner.cancelRun), so the episode's
 *   state follows from the run's end in the run-end hook as for any other end (episode-run-ends.ts):
 *   an import cancelled before its search started is never charged; a search once started was.
 * - Delete cancels what still runs for the episode, removes its files, then its rows in one
 *   transaction. The runs stay (the account's run history and webhook events name them), their
 *   files do not.
 */
import { Conflict, Refused } from "../domain/errors.js";
import type { Queryable } from "../store/db.js";
import { CANCELLED, lockEpisode, notFound, toEpisode, type EpisodeDeps, type EpisodeRow } from "./episode-rows.js";

/** Episodes per page unless the caller asks for another size (the published list's 10). */
export const EPISODE_PAGE = 10;
export const MAX_EPISODE_PAGE = 50;

/** A cursor names the last episode of the page before; opaque to callers. */
const CURSOR = /^ep_([0-9a-f-]{36})$/;
export const episodeCursor = (id: string) => `ep_${id}`;

export class EpisodeLifecycle {
  constructor(
    private readonly deps: EpisodeDeps,
    /** The service's select of an episode with its current run (episodes.ts). */
    private readonly select: string,
  ) {}

  /** One page, newest first, and the cursor of the next page (null on the last). */
  async page(
    accountId: string,
    opts: { limit?: number; cursor?: string },
  ): Promise<{ episodes: EpisodeRow[]; next_cursor: string | null }> {
    const limit = opts.limit ?? EPISODE_PAGE;
    let after: string | undefined;
    if (opts.cursor !== undefined) {
      after = CURSOR.exec(opts.cursor)?.[1];
      const known =
        after &&
        (await this.deps.db.query(`select 1 from episodes where id = $1 and account_id = $2`, [after, accountId]))
          .rows[0];
      if (!known)
        throw new Refused(
          "invalid_cursor",
          "cursor is not a next_cursor of this list (or its episode was deleted); list again from the first page",
          { context: { field: "cursor" } },
        );
    }
    // One more than asked tells whether a next page exists without counting.
    const { rows } = await this.deps.db.query(
      `${this.select} where e.account_id = $1 ${
        after ? "and (e.created_at, e.id) < (select c.created_at, c.id from episodes c where c.id = $3) " : ""
      }order by e.created_at desc, e.id desc limit $2`,
      after ? [accountId, limit + 1, after] : [accountId, limit + 1],
    );
    const episodes = rows.slice(0, limit).map(toEpisode);
    return {
      episodes,
      next_cursor: rows.length > limit ? episodeCursor(episodes[episodes.length - 1]!.id) : null,
    };
  }

  /**
   * Cancels an episode being made (awaiting its upload, importing or searching). Its current run
   * is cancelled; the run's end settles the episode (failed, code "cancelled"). An import that
   * ended just before is followed by its search: that one is cancelled too.
   */
  async cancel(accountId: string, id: string): Promise<{ episode: EpisodeRow; cancelled: boolean }> {
    for (let tries = 0; tries < 5; tries++) {
      const ep = await this.read(accountId, id);
      if (ep.status === "ready" || ep.status === "failed") return { episode: ep, cancelled: tries > 0 };
      if (ep.status === "awaiting_upload") {
        const done = await this.deps.db.transaction(async (tx) => {
          const locked = await lockEpisode(tx, accountId, id);
          if (locked.status !== "awaiting_upload") return false;
          await tx.query(`update episodes set status = 'failed', failure = $2, updated_at = now() where id = $1`, [
            id,
            JSON.stringify(CANCELLED),
          ]);
          return true;
        });
        if (done) return { episode: await this.read(accountId, id), cancelled: true };
        continue;
      }
      const runId = ep.status === "searching" ? ep.search_run_id : ep.run_id;
      if (runId) await this.deps.runner.cancelRun(runId);
    }
    throw new Conflict("cancel_raced", `episode ${id} kept changing while it was cancelled; try again`);
  }

  /** Deletes an episode, its clips and jobs, and every file stored for it. */
  async remove(accountId: string, id: string): Promise<{ episode_id: string; files_removed: number }> {
    const ep = await this.read(accountId, id);
    const runs = await this.runsOf(this.deps.db, ep);
    // Nothing may go on writing files for it while they are removed.
    for (const r of runs) await this.deps.runner.cancelRun(r);
    const { rows } = await this.deps.db.query(`select cover_key from episodes where id = $1`, [id]);
    const clips = await this.deps.db.query(`select id from clips where episode_id = $1`, [id]);
    const keys = [
      ...runs.map((r) => `runs/${r}`),
      ...(ep.upload?.key ? [ep.upload.key] : []),
      ...(rows[0]?.cover_key ? [String(rows[0].cover_key)] : []),
      // Its cover art (daemon/brand/episode-cover.ts); the studio's drawings are under its import run's folder.
      `episodes/${id}`,
      ...clips.rows.map((c) => `edits/${String(c.id)}`),
    ];
    for (const key of keys) await this.deps.storage.remove(key);
    await this.deps.db.transaction(async (tx) => {
      await lockEpisode(tx, accountId, id);
      await tx.query(`delete from jobs where episode_id = $1`, [id]);
      await tx.query(`delete from clips where episode_id = $1`, [id]);
      await tx.query(`delete from episodes where id = $1`, [id]);
    });
    this.deps.log.info({ episodeId: id, runs: runs.length }, "episode deleted");
    return { episode_id: id, files_removed: keys.length };
  }

  private async read(accountId: string, id: string): Promise<EpisodeRow> {
    const { rows } = await this.deps.db.query(`${this.select} where e.id = $1 and e.account_id = $2`, [id, accountId]);
    if (!rows[0]) throw notFound("episode", id);
    return toEpisode(rows[0]);
  }

  /** Every run made for the episode: its import, its searches and its clips' jobs. */
  private async runsOf(q: Queryable, ep: EpisodeRow): Promise<string[]> {
    const { rows } = await q.query(`select run_id from jobs where episode_id = $1 and run_id is not null`, [ep.id]);
    const ids = [ep.run_id, ep.search_run_id, ...ep.searches.map((s) => s.run_id), ...rows.map((r) => r.run_id)];
    return [...new Set(ids.filter((x): x is string => typeof x === "string"))];
  }
}
