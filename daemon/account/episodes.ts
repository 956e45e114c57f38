/**
 * Episodes of the account API, over the runs that do the work; their clips and jobs are in
 * clip-jobs.ts.
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
import { randomUUID } from "node:crypto";
import { stepsAheadSql } from "../engine/queue.js";
import { loadStyles } from "../render/styles.js";
import { extensionOf, sniffMedia, SNIFF_BYTES } from "../domain/media-types.js";
import { Conflict, LimitReached, Refused } from "../domain/errors.js";
import { transactionWith, type Queryable, type Within } from "../store/db.js";
import { EpisodeRunEnds } from "./episode-run-ends.js";
import { ClipJobs } from "./clip-jobs.js";
import { ClipLooks } from "./clip-look.js";
import { ClipEdits } from "./clip-edits.js";
import { EpisodeLifecycle } from "./episode-lifecycle.js";
import {
  clipsOf,
  lockEpisode,
  PIPELINES,
  toClip,
  toEpisode,
  type EpisodeDeps,
  type EpisodeStatus,
  type ClipRow,
  type EpisodeRow,
} from "./episode-rows.js";
import type { AccountSurface } from "./surfaces.js";

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
/** Largest upload or download accepted for an episode, in bytes (4.5 GB, as the probe stage). */
export const MAX_EPISODE_BYTES = 4_831_838_208;

/**
 * Which current run an episode's progress comes from. Until the import ends the episode has no
 * duration of its own, so the probe step's (in the run's merged output) stands in; the `case`
 * keeps a finished episode's read from touching the run's output at all.
 */
const EPISODE_SELECT = `select e.*, r.state as run_state, r.current_stage as run_stage, r.progress as run_progress, r.progress_note as run_note, r.eta_at as run_eta_at,
  case when e.duration_seconds is null then r.output->'media'->>'duration' end as probed_seconds,
  case when r.state in ('queued', 'running') then ${stepsAheadSql("r")} end as queue_ahead
  from episodes e left join runs r on r.id = coalesce(e.search_run_id, e.run_id)`;

export type SearchResult = { status: "searching" | "done"; clips: ClipRow[]; run_id?: string };
export type { ExportResult, RestyleResult } from "./clip-jobs.js";

/** What making an episode tells its caller. */
export type NewEpisode = Pick<EpisodeRow, "id" | "status">;

export class EpisodeService {
  /** An episode's clips and the cut and render jobs made of them (clip-jobs.ts). */
  readonly clips: ClipJobs;
  /** Clip looks against the same style catalogue as caption-burn. */
  readonly looks: ClipLooks;
  /** A clip's caption words and sentence span edited, then rendered again (clip-edits.ts). */
  readonly edits: ClipEdits;
  /** Pages of the list, cancel and delete (episode-lifecycle.ts). */
  readonly lifecycle: EpisodeLifecycle;
  constructor(private readonly deps: EpisodeDeps) {
    this.lifecycle = new EpisodeLifecycle(deps, EPISODE_SELECT);
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
  async create(
    input: {
      id?: string;
      accountId: string;
      name: string;
      sourceUrl?: string;
      upload?: { key: string; name: string };
      options: EpisodeRow["options"];
      /** The surface asking; recorded on the runs this starts. */
      origin: AccountSurface;
    },
    within?: Within<NewEpisode>,
  ): Promise<NewEpisode> {
    const id = input.id ?? randomUUID();
    return transactionWith(
      this.deps.db,
      async (tx) => {
        await this.deps.billing.assertCanStartEpisode(tx, input.accountId, input.origin);
        await tx.query(
          `insert into episodes (id, account_id, livemode, name, status, source_url, ` +
            `upload, options) values ($1, $2, true, $3, 'awaiting_upload', $4, $5, $6)`,
          [
            id,
            input.accountId,
            input.name,
            input.sourceUrl ?? null,
            input.upload ? JSON.stringify(input.upload) : null,
            JSON.stringify(input.options),
          ],
        );
        if (input.sourceUrl)
          await this.startImport(tx, id, input.accountId, input.origin, { source_url: input.sourceUrl });
        // Known without reading the row back: the account row stays locked for as short as can be.
        return { id, status: input.sourceUrl ? "importing" : "awaiting_upload" } as const;
      },
      within,
    );
  }

  /** Starts the import of an uploaded episode. A repeat once it has started changes nothing. */
  async markUploaded(
    accountId: string,
    id: string,
    origin: AccountSurface,
    within?: Within<{ episode: EpisodeRow; started: boolean }>,
  ): Promise<{ episode: EpisodeRow; started: boolean }> {
    const start = async (tx: Queryable): Promise<boolean> => {
      const ep = await this.lockEpisode(tx, accountId, id);
      if (ep.status !== "awaiting_upload") return false;
      if (!ep.upload)
        throw new Conflict("bad_state", `episode ${id} imports from its source_url; there is nothing to upload`);
      const size = (await this.deps.storage.exists(ep.upload.key)) ? await this.deps.storage.size(ep.upload.key) : 0;
      if (size === 0)
        throw new Conflict(
          "upload_missing",
          `no file was uploaded for episode ${id} yet; PUT it to the upload url first`,
        );
      // A presigned PUT straight to an object store was not measured on the way in: measure it now.
      if (size > MAX_EPISODE_BYTES) {
        await this.deps.storage.remove(ep.upload.key);
        throw new LimitReached(
          "size",
          "too_big",
          `the uploaded file is ${size} bytes, over the ${MAX_EPISODE_BYTES}-byte limit; upload a smaller file`,
          { context: { max_bytes: MAX_EPISODE_BYTES } },
        );
      }
      const upload = await this.typedUpload(ep.upload);
      await this.deps.billing.assertCanStartEpisode(tx, accountId, origin);
      if (upload !== ep.upload)
        await tx.query(`update episodes set upload = $2 where id = $1`, [id, JSON.stringify(upload)]);
      await this.startImport(tx, id, accountId, origin, { upload });
      return true;
    };
    return transactionWith(
      this.deps.db,
      async (tx) => {
        const started = await start(tx);
        return { episode: (await this.get(accountId, id, tx))!, started };
      },
      within,
    );
  }

  /**
   * An upload named without an extension gets one from its first bytes; bytes that are not audio
   * or video are refused (400 unsupported_type), and the episode keeps waiting for a media file.
   */
  private async typedUpload(upload: { key: string; name: string }): Promise<{ key: string; name: string }> {
    const sniff = sniffMedia(await this.deps.storage.readHead(upload.key, SNIFF_BYTES));
    // A named upload was sniffed as it came in through clipd; one PUT straight to an object store
    // was not, so a web page or text under a media name is refused here too.
    if (extensionOf(upload.name)) {
      if (sniff.kind === "html" || sniff.kind === "text") {
        throw new Refused(
          "unsupported_type",
          `the uploaded file is not audio or video (it looks like ${sniff.kind === "html" ? "a web page" : "text"}); ` +
            `PUT a media file to the upload url again`,
          { context: { detected: sniff.kind } },
        );
      }
      return upload;
    }
    if (sniff.kind !== "media") {
      const seen = sniff.kind === "html" ? "a web page" : sniff.kind === "text" ? "text" : "an unknown binary format";
      throw new Refused(
        "unsupported_type",
        `the uploaded file is not audio or video (it looks like ${seen}); PUT a media file to the upload url again`,
        { context: { detected: sniff.kind } },
      );
    }
    return { key: upload.key, name: `${upload.name}${sniff.ext}` };
  }

  private async startImport(
    tx: Queryable,
    id: string,
    accountId: string,
    origin: AccountSurface,
    source: Record<string, unknown>,
  ) {
    const run = await this.deps.runner.startRun(
      PIPELINES.import,
      { ...source, account_id: accountId, livemode: true, episode_id: id },
      { tx, origin, originRef: `episode:${id}` },
    );
    await tx.query(`update episodes set status = 'importing', run_id = $2, updated_at = now() where id = $1`, [
      id,
      run.id,
    ]);
  }

  private lockEpisode(tx: Queryable, accountId: string, id: string): Promise<EpisodeRow> {
    return lockEpisode(tx, accountId, id);
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
        const ep = await this.lockEpisode(tx, accountId, id);
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
        const clips = await this.clipsOf(id, tx);
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
