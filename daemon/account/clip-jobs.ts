/**
 * An episode's clips and the jobs that cut and render them (export, restyle, captions). Starting a
 * job and a clip's status are in clip-job-runs.ts, the captions read in clip-captions.ts.
 *
 * Guarantees (as for episodes, episodes.ts): a call takes the episode row lock, charges and starts
 * its runs in one transaction, so a refused clip is neither started nor charged; a job's end is
 * settled in the transaction that ends its run (episode-run-ends.ts).
 */
import { Conflict, PaymentRequired, Refused } from "../domain/errors.js";
import { stepsAheadSql } from "../engine/queue.js";
import { transactionWith, type Queryable, type Within } from "../store/db.js";
import {
  ClipLooks,
  cutChanged,
  lookChanges,
  resolveLook,
  sameRequest,
  stepsRelative,
  type LookChange,
} from "./clip-look.js";
import {
  clipsOf,
  lockEpisode,
  notFound,
  toClip,
  toJob,
  type ClipLook,
  type ClipRow,
  type EpisodeDeps,
  type JobRow,
  type NotStarted,
  type StartedJob,
} from "./episode-rows.js";
import type { AccountSurface } from "./surfaces.js";
import { customClip } from "./clip-spans.js";
import { assertKit } from "../brand/run-input.js";
import { ClipJobRuns } from "./clip-job-runs.js";
import { captionsOf, type ClipCaptions } from "./clip-captions.js";

export type ExportResult = { jobs: StartedJob[]; not_started: NotStarted[]; charged_cents: number };
export type RestyleResult = {
  job: Pick<StartedJob, "job_id" | "kind" | "charged_cents"> & { status: JobRow["status"] };
  changes: LookChange[];
  /** The request repeats the one that made the clip's latest job, relative values and all: nothing started. */
  repeated?: boolean;
};

export class ClipJobs {
  /** Starting a job and a clip's status (clip-job-runs.ts). */
  private readonly runs: ClipJobRuns;
  constructor(
    private readonly deps: EpisodeDeps,
    readonly looks: ClipLooks,
  ) {
    this.runs = new ClipJobRuns(deps, looks);
  }

  async getClip(accountId: string, id: string, q: Queryable = this.deps.db): Promise<ClipRow | undefined> {
    const { rows } = await q.query(`select * from clips where id = $1 and account_id = $2`, [id, accountId]);
    return rows[0] ? toClip(rows[0]) : undefined;
  }

  async getJob(accountId: string, id: string): Promise<JobRow | undefined> {
    const { rows } = await this.deps.db.query(
      `select j.*, r.state as run_state, r.progress as run_progress, r.progress_note as run_note, r.eta_at as run_eta_at, c.data->>'title' as clip_title,
         case when r.state in ('queued', 'running') then ${stepsAheadSql("r")} end as queue_ahead
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
  async exportClips(
    accountId: string,
    episodeId: string,
    input: { clips: Array<number | string | { start: number; end: number }>; look: ClipLook; origin: AccountSurface },
    within?: Within<ExportResult>,
  ): Promise<ExportResult> {
    return transactionWith(
      this.deps.db,
      async (tx) => {
        const ep = await lockEpisode(tx, accountId, episodeId);
        const clips = await clipsOf(tx, episodeId);
        // A ready episode whose search found nothing can still have clips of the user's own times.
        const ownTimes = ep.status === "ready" && input.clips.some((c) => typeof c === "object");
        if (!clips.length && !ownTimes)
          throw new Conflict("episode_not_ready", `episode ${episodeId} is ${ep.status} and has no clips yet`, {
            context: { status: ep.status },
          });
        let index = await this.exportCount(tx, episodeId);
        const jobs: StartedJob[] = [];
        const notStarted: NotStarted[] = [];
        let refusal: PaymentRequired | undefined;
        const seen = new Set<string>();
        // Each clip gets the account's defaults where the request names nothing (clip-look.ts).
        await assertKit(tx, accountId, input.look.brand_kit);
        const look = resolveLook(await this.looks.defaults(tx, accountId), input.look);
        for (const [n, asked] of input.clips.entries()) {
          // A span of the user's own ({ start, end }) becomes a clip of the episode first (clip-spans.ts).
          const custom =
            typeof asked === "object" ? await customClip(tx, this.deps.storage, ep, clips, asked, n) : undefined;
          const want = custom ? custom.ref : (asked as number | string);
          const clip =
            custom ??
            (typeof want === "number" ? clips.find((c) => c.number === want) : clips.find((c) => c.ref === want));
          if (!clip) {
            notStarted.push({
              clip: want,
              reason: "not_found",
              message:
                `unknown clip reference ${typeof want === "number" ? want : `"${want}"`}: ` +
                `episode ${episodeId} has no such clip`,
            });
            continue;
          }
          if (seen.has(clip.id)) {
            notStarted.push({
              clip: want,
              reason: "duplicate",
              message: `clip ${clip.number} is named twice; it is exported once`,
            });
            continue;
          }
          seen.add(clip.id);
          const current = await this.looks.current(tx, clip);
          const changes = lookChanges(current.look, look);
          // Made already with this look (or being made): that job again, nothing started or charged, as restyle does.
          if (current.job && clip.cut_status !== "not_cut" && !changes.length) {
            jobs.push({
              job_id: current.job.job_id,
              clip_id: clip.id,
              number: clip.number,
              ref: clip.ref,
              kind: current.job.kind,
              status: ClipJobs.publicJobStatus(current.job),
              charged_cents: 0,
              existing: true,
            });
            continue;
          }
          const kind = clip.cut && !cutChanged(changes) ? "render" : "cut";
          const started = await this.tryStartJob(tx, ep, clip, {
            kind,
            look,
            changes: [],
            index: index + 1,
            prevRender: null,
            origin: input.origin,
          });
          if (started instanceof PaymentRequired) {
            refusal ??= started;
            notStarted.push({
              clip: want,
              reason: started.code,
              message: started.message,
              needed_cents: started.neededCents,
            });
            continue;
          }
          index++;
          jobs.push(started);
        }
        if (!jobs.length) {
          if (refusal) throw refusal;
          throw new Refused(
            "invalid_request",
            `no clip could be exported: ${notStarted.map((n) => n.message).join("; ")}`,
            { context: { field: "clips", not_started: notStarted } },
          );
        }
        return { jobs, not_started: notStarted, charged_cents: jobs.reduce((a, j) => a + j.charged_cents, 0) };
      },
      within,
    );
  }

  /**
   * A new look for a clip already cut: what the request names over the clip's current look
   * (restyle pipeline; a new fit or background cuts again). When nothing resolves to a new value,
   * nothing starts and nothing is charged: the answer is the job that made the current look.
   */
  async restyle(
    accountId: string,
    clipId: string,
    want: ClipLook,
    opts: { saveAsDefault?: boolean; origin: AccountSurface },
    within?: Within<RestyleResult>,
  ): Promise<RestyleResult> {
    return transactionWith(
      this.deps.db,
      async (tx) => {
        const found = await this.getClip(accountId, clipId, tx);
        if (!found) throw notFound("clip", clipId);
        const ep = await lockEpisode(tx, accountId, found.episode_id);
        const clip = (await this.getClip(accountId, clipId, tx))!; // again, under the episode lock
        if (!clip.cut) {
          const why =
            clip.cut_status === "cutting"
              ? "is still being cut; retry when its job completes"
              : "has not been cut; export it first with POST /episodes/{id}/clips";
          throw new Conflict("clip_not_cut", `clip ${clipId} ${why}`, { context: { cut_status: clip.cut_status } });
        }
        await assertKit(tx, accountId, want.brand_kit);
        const current = await this.looks.current(tx, clip);
        // "bigger" sent again right after a "bigger" is the same request repeated (a retry, a
        // double send), not a second step: it answers the job the first one started, so a repeat
        // never renders or charges twice. Another step needs another request in between, or a value.
        const repeated = !!current.job && !!current.asked && stepsRelative(want) && sameRequest(want, current.asked);
        const look = repeated ? current.look : resolveLook(current.look, want);
        const changes = lookChanges(current.look, look);
        if (opts.saveAsDefault) await this.looks.saveDefaults(tx, accountId, look);
        if (!changes.length) {
          if (!current.job)
            throw new Refused("nothing_to_change", `clip ${clipId} already looks like this`, {
              context: { field: "body" },
            });
          const job = { ...current.job, status: ClipJobs.publicJobStatus(current.job), charged_cents: 0 };
          return { job, changes, ...(repeated ? { repeated } : {}) };
        }
        const kind = cutChanged(changes) ? "cut" : "render";
        const started = await this.tryStartJob(tx, ep, clip, {
          kind,
          look,
          changes,
          index: (await this.exportCount(tx, ep.id)) + 1,
          prevRender: clip.render,
          origin: opts.origin,
          asked: want,
        });
        if (started instanceof PaymentRequired) throw started;
        return { job: started, changes };
      },
      within,
    );
  }

  exportCount(...args: Parameters<ClipJobRuns["exportCount"]>): Promise<number> {
    return this.runs.exportCount(...args);
  }

  /** Starts one cut or render job, charged; a refused charge is returned, not thrown (clip-job-runs.ts). */
  tryStartJob(...args: Parameters<ClipJobRuns["tryStartJob"]>): Promise<StartedJob | PaymentRequired> {
    return this.runs.tryStartJob(...args);
  }

  /** A clip's cut and export status, derived again (clip-job-runs.ts; also run when a job ends). */
  refreshClip(tx: Queryable, clipId: string): Promise<void> {
    return this.runs.refreshClip(tx, clipId);
  }

  // ---- captions ----------------------------------------------------------------------------

  /** The clip's captions on its own timeline, with speakers (clip-captions.ts). */
  async captions(accountId: string, clipId: string): Promise<ClipCaptions> {
    const clip = await this.getClip(accountId, clipId);
    if (!clip) throw notFound("clip", clipId);
    return captionsOf(this.deps, this.looks, clip);
  }

  /** Jobs show running once their run has begun. */
  static publicJobStatus(job: Pick<JobRow, "status"> & { run?: { state: string } | null }): JobRow["status"] {
    if (job.status === "queued" && job.run?.state === "running") return "running";
    return job.status;
  }
}
