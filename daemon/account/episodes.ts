/**
 * Episodes, clips and jobs of the account API, over the runs that do the work.
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
import { toCues, type TranscriptSegment, type TranscriptWord } from "../kit/captions.js";
import { loadStyles } from "../kit/styles.js";
import { retimeWords } from "../kit/timeline.js";
import { extensionOf, sniffMedia, SNIFF_BYTES } from "../kit/media-types.js";
import { Conflict, NotFound, PaymentRequired, Refused } from "../kit/errors.js";
import type { Run, Runner } from "../engine/runner.js";
import type { Storage } from "../kit/storage.js";
import { transactionWith, type Db, type Queryable, type Within } from "../store/db.js";
import { EpisodeRunEnds } from "./episode-run-ends.js";
import { ClipLooks, cutChanged, lookChanges, resolveLook, type Look, type LookChange } from "./clip-look.js";
import { jsonColumn } from "../store/_columns.js";
import { toClip, toEpisode, toJob, type EpisodeDeps, type ClipLook, type EpisodeStatus, type ClipRow, type EpisodeRow, type JobRow, type NotStarted, type StartedJob } from "./episode-rows.js";
import type { AccountSurface } from "./surfaces.js";

export type { ClipLook, ClipRow, EpisodeDeps, EpisodeRow, EpisodeStatus, JobRow, NotStarted, StartedJob } from "./episode-rows.js";

export const PIPELINES = { import: "api-episode", search: "api-search", cut: "clip", render: "restyle" } as const;
/** Largest upload or download accepted for an episode, in bytes (4.5 GB, as the probe stage). */
export const MAX_EPISODE_BYTES = 4_831_838_208;


const notFound = (what: string, id: string) => new NotFound("not_found", `no ${what} ${id} on this account`, { context: { field: "id" } });

/** Which current run an episode's progress comes from. */
const EPISODE_SELECT = `select e.*, r.state as run_state, r.current_stage as run_stage, r.progress as run_progress, r.progress_note as run_note
  from episodes e left join runs r on r.id = coalesce(e.search_run_id, e.run_id)`;


export type SearchResult = { status: "searching" | "done"; clips: ClipRow[]; run_id?: string };
export type ExportResult = { jobs: StartedJob[]; not_started: NotStarted[]; charged_cents: number };
export type RestyleResult = { job: Pick<StartedJob, "job_id" | "kind" | "charged_cents"> & { status: JobRow["status"] }; changes: LookChange[] };

/** What making an episode tells its caller. */
export type NewEpisode = Pick<EpisodeRow, "id" | "status">;

export class EpisodeService {
  /** Clip looks against the same style catalogue as caption-burn. */
  readonly looks: ClipLooks;
  constructor(private readonly deps: EpisodeDeps) {
    this.looks = new ClipLooks((deps.config as { render?: { styles_file?: string } }).render?.styles_file);
  }

  /** Registers the run-end hooks; call once per process that works the queue (every process may). */
  register(): void {
    const ends = new EpisodeRunEnds(this, this.deps);
    this.deps.runner.onRunEnd((tx, run) => ends.onRunEnd(tx, run));
  }

  styles(): Array<{ id: string; name: string; description: string }> {
    // Same catalogue as caption-burn (render.styles_file overrides it there too).
    const cat = loadStyles((this.deps.config as { render?: { styles_file?: string } }).render?.styles_file || undefined);
    return cat.styles.map((s) => ({ id: s.id, name: s.name, description: s.description }));
  }

  /** A style id for an id or a name (case and spacing ignored); undefined when unknown. */
  resolveStyle(value: string): string | undefined {
    const norm = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, "");
    return this.styles().find((s) => s.id === value || norm(s.name) === norm(value) || norm(s.id) === norm(value))?.id;
  }

  // ---- episodes ----------------------------------------------------------------------------

  /** Makes an episode; with a source_url its import starts at once. Checks the bill first. */
  async create(input: {
    id?: string; accountId: string; name: string; sourceUrl?: string; upload?: { key: string; name: string };
    options: EpisodeRow["options"];
    /** The surface asking; recorded on the runs this starts. */
    origin: AccountSurface;
  }, within?: Within<NewEpisode>): Promise<NewEpisode> {
    const id = input.id ?? randomUUID();
    return transactionWith(this.deps.db, async (tx) => {
      await this.deps.billing.assertCanStartEpisode(tx, input.accountId);
      await tx.query(
        `insert into episodes (id, account_id, livemode, name, status, source_url, upload, options) values ($1, $2, true, $3, 'awaiting_upload', $4, $5, $6)`,
        [id, input.accountId, input.name, input.sourceUrl ?? null, input.upload ? JSON.stringify(input.upload) : null, JSON.stringify(input.options)],
      );
      if (input.sourceUrl) await this.startImport(tx, id, input.accountId, input.origin, { source_url: input.sourceUrl });
      // Known without reading the row back: the account row stays locked for as short as can be.
      return { id, status: input.sourceUrl ? "importing" : "awaiting_upload" } as const;
    }, within);
  }

  /** Starts the import of an uploaded episode. A repeat once it has started changes nothing. */
  async markUploaded(accountId: string, id: string, origin: AccountSurface, within?: Within<{ episode: EpisodeRow; started: boolean }>): Promise<{ episode: EpisodeRow; started: boolean }> {
    const start = async (tx: Queryable): Promise<boolean> => {
      const ep = await this.lockEpisode(tx, accountId, id);
      if (ep.status !== "awaiting_upload") return false;
      if (!ep.upload) throw new Conflict("bad_state", `episode ${id} imports from its source_url; there is nothing to upload`);
      if (!(await this.deps.storage.exists(ep.upload.key)) || (await this.deps.storage.size(ep.upload.key)) === 0) {
        throw new Conflict("upload_missing", `no file was uploaded for episode ${id} yet; PUT it to the upload url first`);
      }
      const upload = await this.typedUpload(ep.upload);
      await this.deps.billing.assertCanStartEpisode(tx, accountId);
      if (upload !== ep.upload) await tx.query(`update episodes set upload = $2 where id = $1`, [id, JSON.stringify(upload)]);
      await this.startImport(tx, id, accountId, origin, { upload });
      return true;
    };
    return transactionWith(this.deps.db, async (tx) => {
      const started = await start(tx);
      return { episode: (await this.get(accountId, id, tx))!, started };
    }, within);
  }

  /**
   * An upload named without an extension gets one from its first bytes; bytes that are not audio
   * or video are refused (400 unsupported_type), and the episode keeps waiting for a media file.
   */
  private async typedUpload(upload: { key: string; name: string }): Promise<{ key: string; name: string }> {
    if (extensionOf(upload.name)) return upload;
    const sniff = sniffMedia(await this.deps.storage.readHead(upload.key, SNIFF_BYTES));
    if (sniff.kind !== "media") {
      const seen = sniff.kind === "html" ? "a web page" : sniff.kind === "text" ? "text" : "an unknown binary format";
      throw new Refused("unsupported_type", `the uploaded file is not audio or video (it looks like ${seen}); PUT a media file to the upload url again`, { context: { detected: sniff.kind } });
    }
    return { key: upload.key, name: `${upload.name}${sniff.ext}` };
  }

  private async startImport(tx: Queryable, id: string, accountId: string, origin: AccountSurface, source: Record<string, unknown>) {
    const run = await this.deps.runner.startRun(PIPELINES.import, { ...source, account_id: accountId, livemode: true, episode_id: id }, { tx, origin, originRef: `episode:${id}` });
    await tx.query(`update episodes set status = 'importing', run_id = $2, updated_at = now() where id = $1`, [id, run.id]);
  }

  private async lockEpisode(tx: Queryable, accountId: string, id: string): Promise<EpisodeRow> {
    const { rows } = await tx.query(`select * from episodes where id = $1 and account_id = $2 for update`, [id, accountId]);
    if (!rows[0]) throw notFound("episode", id);
    return toEpisode(rows[0]);
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
    const clips = (typeof clips_json === "string" ? JSON.parse(clips_json) : clips_json) as any[];
    return { episode: toEpisode(row), clips: clips.map(toClip) };
  }

  async list(accountId: string, limit = 10): Promise<EpisodeRow[]> {
    const { rows } = await this.deps.db.query(`${EPISODE_SELECT} where e.account_id = $1 order by e.created_at desc, e.id limit $2`, [accountId, limit]);
    return rows.map(toEpisode);
  }

  async clipsOf(episodeId: string, q: Queryable = this.deps.db): Promise<ClipRow[]> {
    const { rows } = await q.query(`select * from clips where episode_id = $1 order by number`, [episodeId]);
    return rows.map(toClip);
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
  async search(accountId: string, id: string, input: { about?: string; target_seconds?: number; origin: AccountSurface }, within?: Within<SearchResult>): Promise<SearchResult> {
    return transactionWith(this.deps.db, async (tx) => {
      const ep = await this.lockEpisode(tx, accountId, id);
      if (ep.status === "searching") throw new Conflict("search_in_progress", `episode ${id} is searching for clips already; retry when it is ready`);
      if (ep.status !== "ready") throw new Conflict("episode_not_ready", `episode ${id} is ${ep.status}; it can be searched once it is ready`, { context: { status: ep.status } });
      const about = input.about?.trim() || undefined;
      const done = about !== undefined && ep.searches.find((s) => s.about === about && s.state === "succeeded" && (input.target_seconds === undefined || (s as any).target_seconds === input.target_seconds));
      const clips = await this.clipsOf(id, tx);
      if (done) return { status: "done" as const, clips: clips.filter((c) => c.data.about === about) };
      await this.deps.billing.assertNotBelowZero(tx, accountId);
      const runId = await this.startSearch(tx, ep, { about: about ?? ep.options.about, target_seconds: input.target_seconds ?? ep.options.target_seconds, origin: input.origin }, clips.map((c) => c.data));
      return { status: "searching" as const, clips: [], run_id: runId };
    }, within);
  }

  /** Starts a clip search run (also called by episode-run-ends.ts when an import ends). */
  async startSearch(tx: Queryable, ep: EpisodeRow, opts: { about?: string; target_seconds?: number; origin: AccountSurface }, existing: unknown[]): Promise<string> {
    const set: Record<string, unknown> = {};
    if (ep.options.content_type) set.content_type = ep.options.content_type;
    if (opts.target_seconds) set.target_seconds = opts.target_seconds;
    if (opts.about) set.about = opts.about;
    const run = await this.deps.runner.startRun(
      PIPELINES.search,
      { ...ep.state, clips: existing, account_id: ep.account_id, livemode: true, episode_id: ep.id },
      { tx, origin: opts.origin, originRef: `search:${ep.id}`, set },
    );
    const searches = [...ep.searches, { about: opts.about ?? null, target_seconds: opts.target_seconds, run_id: run.id, state: "running" }];
    await tx.query(`update episodes set status = 'searching', search_run_id = $2, searches = $3, updated_at = now() where id = $1`, [ep.id, run.id, JSON.stringify(searches)]);
    return run.id;
  }

  // ---- clips and jobs ----------------------------------------------------------------------

  async getClip(accountId: string, id: string, q: Queryable = this.deps.db): Promise<ClipRow | undefined> {
    const { rows } = await q.query(`select * from clips where id = $1 and account_id = $2`, [id, accountId]);
    return rows[0] ? toClip(rows[0]) : undefined;
  }

  async getJob(accountId: string, id: string): Promise<JobRow | undefined> {
    const { rows } = await this.deps.db.query(
      `select j.*, r.state as run_state, r.progress as run_progress, r.progress_note as run_note, c.data->>'title' as clip_title
         from jobs j left join runs r on r.id = j.run_id join clips c on c.id = j.clip_id where j.id = $1 and j.account_id = $2`,
      [id, accountId],
    );
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  /**
   * Exports clips of an episode: one job per clip, a cut (clip pipeline) for a clip not cut yet or
   * with a new fit/background, else a render (restyle pipeline). Clips that cannot start are listed
   * with a reason and charged nothing. When none can start, the whole call is refused.
   */
  async exportClips(accountId: string, episodeId: string, input: { clips: Array<number | string>; look: ClipLook; origin: AccountSurface }, within?: Within<ExportResult>): Promise<ExportResult> {
    return transactionWith(this.deps.db, async (tx) => {
      const ep = await this.lockEpisode(tx, accountId, episodeId);
      const clips = await this.clipsOf(episodeId, tx);
      if (!clips.length) throw new Conflict("episode_not_ready", `episode ${episodeId} is ${ep.status} and has no clips yet`, { context: { status: ep.status } });
      let index = await this.exportCount(tx, episodeId);
      const jobs: StartedJob[] = [];
      const notStarted: NotStarted[] = [];
      let refusal: PaymentRequired | undefined;
      const seen = new Set<string>();
      // Each clip gets the account's defaults where the request names nothing (clip-look.ts).
      const look = resolveLook(await this.looks.defaults(tx, accountId), input.look);
      for (const want of input.clips) {
        const clip = typeof want === "number" ? clips.find((c) => c.number === want) : clips.find((c) => c.ref === want);
        if (!clip) {
          notStarted.push({ clip: want, reason: "not_found", message: `unknown clip reference ${typeof want === "number" ? want : `"${want}"`}: episode ${episodeId} has no such clip` });
          continue;
        }
        if (seen.has(clip.id)) {
          notStarted.push({ clip: want, reason: "duplicate", message: `clip ${clip.number} is named twice; it is exported once` });
          continue;
        }
        seen.add(clip.id);
        const kind = clip.cut && !cutChanged(lookChanges((await this.looks.current(tx, clip)).look, look)) ? "render" : "cut";
        const started = await this.tryStartJob(tx, ep, clip, { kind, look, changes: [], index: index + 1, prevRender: null, origin: input.origin });
        if (started instanceof PaymentRequired) {
          refusal ??= started;
          notStarted.push({ clip: want, reason: started.code, message: started.message, needed_cents: started.neededCents });
          continue;
        }
        index++;
        jobs.push(started);
      }
      if (!jobs.length) {
        if (refusal) throw refusal;
        throw new Refused("invalid_request", `no clip could be exported: ${notStarted.map((n) => n.message).join("; ")}`, { context: { field: "clips", not_started: notStarted } });
      }
      return { jobs, not_started: notStarted, charged_cents: jobs.reduce((a, j) => a + j.charged_cents, 0) };
    }, within);
  }

  /**
   * A new look for a clip already cut: what the request names over the clip's current look
   * (restyle pipeline; a new fit or background cuts again). When nothing resolves to a new value,
   * nothing starts and nothing is charged: the answer is the job that made the current look.
   */
  async restyle(accountId: string, clipId: string, want: ClipLook, opts: { saveAsDefault?: boolean; origin: AccountSurface }, within?: Within<RestyleResult>): Promise<RestyleResult> {
    return transactionWith(this.deps.db, async (tx) => {
      const found = await this.getClip(accountId, clipId, tx);
      if (!found) throw notFound("clip", clipId);
      const ep = await this.lockEpisode(tx, accountId, found.episode_id);
      const clip = (await this.getClip(accountId, clipId, tx))!; // again, under the episode lock
      if (!clip.cut) {
        const why = clip.cut_status === "cutting" ? "is still being cut; retry when its job completes" : "has not been cut; export it first with POST /episodes/{id}/clips";
        throw new Conflict("clip_not_cut", `clip ${clipId} ${why}`, { context: { cut_status: clip.cut_status } });
      }
      const current = await this.looks.current(tx, clip);
      const look = resolveLook(current.look, want);
      const changes = lookChanges(current.look, look);
      if (opts.saveAsDefault) await this.looks.saveDefaults(tx, accountId, look);
      if (!changes.length) {
        if (!current.job) throw new Refused("nothing_to_change", `clip ${clipId} already looks like this`, { context: { field: "body" } });
        return { job: { ...current.job, status: EpisodeService.publicJobStatus(current.job), charged_cents: 0 }, changes };
      }
      const kind = cutChanged(changes) ? "cut" : "render";
      const started = await this.tryStartJob(tx, ep, clip, { kind, look, changes, index: (await this.exportCount(tx, ep.id)) + 1, prevRender: clip.render, origin: opts.origin });
      if (started instanceof PaymentRequired) throw started;
      return { job: started, changes };
    }, within);
  }

  private async exportCount(tx: Queryable, episodeId: string): Promise<number> {
    const { rows } = await tx.query(`select count(*)::int as n from jobs where episode_id = $1`, [episodeId]);
    return rows[0].n;
  }

  private async tryStartJob(
    tx: Queryable,
    ep: EpisodeRow,
    clip: ClipRow,
    o: { kind: "cut" | "render"; look: Look; changes: LookChange[]; index: number; prevRender: Record<string, any> | null; origin: AccountSurface },
  ): Promise<StartedJob | PaymentRequired> {
    const jobId = randomUUID();
    let cents: number;
    try {
      cents = await this.deps.billing.chargeExport(tx, ep.account_id, jobId, o.index);
    } catch (err) {
      if (err instanceof PaymentRequired) return err;
      throw err;
    }
    // The whole look, spelled out: a stage's own default never stands in for the clip's setting.
    const set = this.looks.runOptions(o.look, o.kind);
    const ids = { account_id: ep.account_id, livemode: true, episode_id: ep.id, clip_id: clip.id, job_id: jobId };
    let run: Run;
    if (o.kind === "cut") {
      run = await this.deps.runner.startRun(PIPELINES.cut, { ...ep.state, clip: clip.data, ...(o.prevRender ? { render: o.prevRender } : {}), ...ids }, { tx, origin: o.origin, originRef: `job:${jobId}`, set });
    } else {
      run = await this.deps.runner.startRun(PIPELINES.render, { cut: clip.cut, ...(o.prevRender ? { render: o.prevRender } : {}), ...ids }, { tx, origin: o.origin, originRef: `job:${jobId}`, set });
    }
    await tx.query(
      `insert into jobs (id, account_id, episode_id, clip_id, kind, status, run_id, options, changes, charged_cents) values ($1, $2, $3, $4, $5, 'queued', $6, $7, $8, $9)`,
      [jobId, ep.account_id, ep.id, clip.id, o.kind, run.id, JSON.stringify(o.look), JSON.stringify(o.changes), cents],
    );
    await this.refreshClip(tx, clip.id);
    return { job_id: jobId, clip_id: clip.id, number: clip.number, ref: clip.ref, kind: o.kind, status: "queued", charged_cents: cents };
  }

  /** Derives a clip's cut and export status from its last results and its jobs in flight (also run when a job ends). */
  async refreshClip(tx: Queryable, clipId: string) {
    await tx.query(
      `update clips c set
         cut_status = case when c.cut is not null then 'cut'
                           when exists (select 1 from jobs j where j.clip_id = c.id and j.kind = 'cut' and j.status in ('queued', 'running')) then 'cutting'
                           when exists (select 1 from jobs j where j.clip_id = c.id and j.kind = 'cut') then 'failed' else 'not_cut' end,
         export_status = case when exists (select 1 from jobs j where j.clip_id = c.id and j.status in ('queued', 'running')) then 'rendering'
                              when c.render is not null then 'exported'
                              when exists (select 1 from jobs j where j.clip_id = c.id) then 'failed' else 'none' end,
         updated_at = now()
       where c.id = $1`,
      [clipId],
    );
  }

  // ---- captions ----------------------------------------------------------------------------

  /** The clip's captions on its own timeline (seconds from the clip's start), with speakers. */
  async captions(accountId: string, clipId: string): Promise<{ clip: ClipRow; captions: Array<{ id: string; start_seconds: number; end_seconds: number; speaker: string; text: string }> }> {
    const clip = await this.getClip(accountId, clipId);
    if (!clip) throw notFound("clip", clipId);
    const { rows } = await this.deps.db.query(`select state from episodes where id = $1`, [clip.episode_id]);
    const key: string | undefined = jsonColumn(rows[0]?.state)?.transcript?.key;
    if (!key || !(await this.deps.storage.exists(key))) return { clip, captions: [] };
    const t = JSON.parse((await this.deps.storage.read(key)).toString("utf8")) as { words: TranscriptWord[]; segments: TranscriptSegment[] };
    const pieces: Array<{ start: number; end: number }> = clip.cut?.pieces ?? clip.data.pieces ?? [{ start: clip.data.start, end: clip.data.end }];
    // Keep each word's index in the transcript, so a caption's speaker comes from its segment.
    const indexed = (t.words ?? []).map((w, i) => ({ ...w, i }));
    const words = retimeWords(indexed, pieces) as Array<TranscriptWord & { i: number }>;
    const speakerOf = (i: number) => (t.segments ?? []).find((s) => i >= s.words[0] && i < s.words[1])?.speaker ?? "S1";
    const captions = toCues(words).map((c, n) => ({
      id: String(n + 1),
      start_seconds: c.start,
      end_seconds: c.end,
      speaker: speakerOf(words[c.words[0]]!.i),
      text: c.lines.join(" "),
    }));
    return { clip, captions };
  }

  /** Jobs show running once their run has begun. */
  static publicJobStatus(job: Pick<JobRow, "status"> & { run?: { state: string } | null }): JobRow["status"] {
    if (job.status === "queued" && job.run?.state === "running") return "running";
    return job.status;
  }
}
