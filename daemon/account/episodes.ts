/**
 * Episodes of the account API, over the runs that do the work: the service and its reads. Making
 * an episode and its import are in episode-imports.ts, clip searches in episode-search.ts, clips
 * and jobs in clip-jobs.ts.
 *
 * Guarantees:
 * - Every state change that follows from a run (an episode ready or failed, its charge and its
 *   clip search starting, a job completed, a clip cut) happens in the transaction that ends the
 *   run (runner.onRunEnd, see episode-run-ends.ts), so it commits with the run or not at all, once.
 * - A call that starts work takes the episode row lock, checks the bill, charges and starts the
 *   runs in one transaction: a refused call leaves no row, no run and no charge behind, and two
 *   concurrent calls cannot both start the same import.
 * - Rows are found by id *and* account, so another account's ids are simply not found.
 *
 * Episode: awaiting_upload → importing (transcribing while the run transcribes) → searching →
 * ready, or failed with a reason. Runs from the watch folder or the CLI have no episode row and
 * are never charged.
 */
import { stepsAheadSql } from "../engine/queue.js";
import { loadStyles } from "../render/styles.js";
import type { Queryable } from "../store/db.js";
import { EpisodeRunEnds } from "./episode-run-ends.js";
import { ClipJobs } from "./clip-jobs.js";
import { ClipLooks } from "./clip-look.js";
import { ClipEdits } from "./clip-edits.js";
import { EpisodeLifecycle } from "./episode-lifecycle.js";
import { EpisodeImports, type NewEpisode } from "./episode-imports.js";
import { EpisodeSearch, type SearchResult } from "./episode-search.js";
import {
  clipsOf,
  toClip,
  toEpisode,
  type EpisodeDeps,
  type EpisodeStatus,
  type ClipRow,
  type EpisodeRow,
} from "./episode-rows.js";

export type {
  ClipLook,
  ClipRow,
  EpisodeDeps,
  EpisodeRow,
  EpisodeStatus,
  JobRow,
  NotStarted,
  StartedJob,
} from "./episode-rows.js";

export { PIPELINES } from "./episode-rows.js";
export { MAX_EPISODE_BYTES, type NewEpisode } from "./episode-imports.js";
export type { SearchResult } from "./episode-search.js";

/**
 * Which current run an episode's progress comes from. Until the import ends the episode has no
 * duration of its own, so the probe step's (in the run's merged output) stands in; the `case`
 * keeps a finished episode's read from touching the run's output at all.
 */
const EPISODE_SELECT = `select e.*, r.state as run_state, r.current_stage as run_stage, r.progress as run_progress, r.progress_note as run_note, r.eta_at as run_eta_at,
  case when e.duration_seconds is null then r.output->'media'->>'duration' end as probed_seconds,
  case when r.state in ('queued', 'running') then ${stepsAheadSql("r")} end as queue_ahead
  from episodes e left join runs r on r.id = coalesce(e.search_run_id, e.run_id)`;

export type { ExportResult, RestyleResult } from "./clip-jobs.js";

export class EpisodeService {
  /** An episode's clips and the cut and render jobs made of them (clip-jobs.ts). */
  readonly clips: ClipJobs;
  /** Clip looks against the same style catalogue as caption-burn. */
  readonly looks: ClipLooks;
  /** A clip's caption words and sentence span edited, then rendered again (clip-edits.ts). */
  readonly edits: ClipEdits;
  /** Pages of the list, cancel and delete (episode-lifecycle.ts). */
  readonly lifecycle: EpisodeLifecycle;
  /** Making an episode and starting its import (episode-imports.ts). */
  private readonly imports: EpisodeImports;
  /** Clip searches by brief (episode-search.ts). */
  private readonly searches: EpisodeSearch;
  constructor(private readonly deps: EpisodeDeps) {
    this.lifecycle = new EpisodeLifecycle(deps, EPISODE_SELECT);
    this.imports = new EpisodeImports(deps, (accountId, id, q) => this.get(accountId, id, q));
    this.searches = new EpisodeSearch(deps);
    const render = (deps.config as { render?: { styles_file?: string; loudness_lufs?: number | "off" } }).render;
    this.looks = new ClipLooks(render?.styles_file, render?.loudness_lufs);
    this.clips = new ClipJobs(deps, this.looks);
    this.edits = new ClipEdits(deps, this.clips);
  }

  /** Registers the run-end hooks; call once per process that works the queue (every process may). */
  register(): void {
    const ends = new EpisodeRunEnds(this, this.deps);
    this.deps.runner.onRunEnd((tx, run) => ends.onRunEnd(tx, run));
  }

  styles(): Array<{ id: string; name: string; description: string }> {
    // Same catalogue as caption-burn (render.styles_file overrides it there too).
    const cat = loadStyles(
      (this.deps.config as { render?: { styles_file?: string } }).render?.styles_file || undefined,
    );
    return cat.styles.map((s) => ({ id: s.id, name: s.name, description: s.description }));
  }

  /** A style id for an id or a name (case and spacing ignored); undefined when unknown. */
  resolveStyle(value: string): string | undefined {
    const norm = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, "");
    return this.styles().find((s) => s.id === value || norm(s.name) === norm(value) || norm(s.id) === norm(value))?.id;
  }

  // ---- episodes ----------------------------------------------------------------------------

  /** Makes an episode; with a source_url its import starts at once. Checks the bill first. */
  create(...args: Parameters<EpisodeImports["create"]>): Promise<NewEpisode> {
    return this.imports.create(...args);
  }

  /** Starts the import of an uploaded episode. A repeat once it has started changes nothing. */
  markUploaded(...args: Parameters<EpisodeImports["markUploaded"]>): ReturnType<EpisodeImports["markUploaded"]> {
    return this.imports.markUploaded(...args);
  }

  async get(accountId: string, id: string, q: Queryable = this.deps.db): Promise<EpisodeRow | undefined> {
    const { rows } = await q.query(`${EPISODE_SELECT} where e.id = $1 and e.account_id = $2`, [id, accountId]);
    return rows[0] ? toEpisode(rows[0]) : undefined;
  }

  /** The episode and its clips in one round trip (the hot read path of GET /episodes/{id}). */
  async getWithClips(accountId: string, id: string): Promise<{ episode: EpisodeRow; clips: ClipRow[] } | undefined> {
    const { rows } = await this.deps.db.query(
      `select x.*, coalesce((select json_agg(c order by c.number) from clips c where c.episode_id = x.id), '[]'::json) as clips_json
         from (${EPISODE_SELECT} where e.id = $1 and e.account_id = $2) x`,
      [id, accountId],
    );
    if (!rows[0]) return undefined;
    const { clips_json, ...row } = rows[0];
    // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
    const clips = (typeof clips_json === "string" ? JSON.parse(clips_json) : clips_json) as any[];
    return { episode: toEpisode(row), clips: clips.map(toClip) };
  }

  async list(accountId: string, limit = 10): Promise<EpisodeRow[]> {
    const { rows } = await this.deps.db.query(
      `${EPISODE_SELECT} where e.account_id = $1 order by e.created_at desc, e.id limit $2`,
      [accountId, limit],
    );
    return rows.map(toEpisode);
  }

  clipsOf(episodeId: string, q: Queryable = this.deps.db): Promise<ClipRow[]> {
    return clipsOf(q, episodeId);
  }

  /** A clip's cut and export status, derived again (also run when a job ends). */
  refreshClip(tx: Queryable, clipId: string): Promise<void> {
    return this.clips.refreshClip(tx, clipId);
  }

  /** The status shown: importing turns transcribing while the import run transcribes. */
  static publicStatus(ep: EpisodeRow): EpisodeStatus {
    if (ep.status === "importing" && ep.run?.stage === "transcribe") return "transcribing";
    return ep.status;
  }

  /**
   * Starts a search for more clips about `about`, or searches again with the episode's own options
   * (episode-search.ts).
   */
  search(...args: Parameters<EpisodeSearch["search"]>): Promise<SearchResult> {
    return this.searches.search(...args);
  }

  /** Starts a clip search run (also called by episode-run-ends.ts when an import ends). */
  startSearch(...args: Parameters<EpisodeSearch["startSearch"]>): Promise<string> {
    return this.searches.startSearch(...args);
  }
}
