/**
 * Starting one cut or render job of a clip, charged in the caller's transaction, and deriving a
 * clip's cut and export status from its jobs. Split from clip-jobs.ts: exports, restyles and
 * caption edits (clip-edits.ts) all start their jobs here, through ClipJobs.
 */
import { randomUUID } from "node:crypto";
import { PaymentRequired } from "../domain/errors.js";
import type { Run } from "../engine/runner.js";
import type { Queryable } from "../store/db.js";
import type { ClipLooks, Look, LookChange } from "./clip-look.js";
import type { ClipLook } from "./episode-rows.js";
import { PIPELINES, type ClipRow, type EpisodeDeps, type EpisodeRow, type StartedJob } from "./episode-rows.js";
import type { AccountSurface } from "./surfaces.js";
import { editedRunInput } from "./clip-spans.js";
import { brandRunInput } from "../brand/run-input.js";

export class ClipJobRuns {
  constructor(
    private readonly deps: EpisodeDeps,
    private readonly looks: ClipLooks,
  ) {}

  async exportCount(tx: Queryable, episodeId: string): Promise<number> {
    const { rows } = await tx.query(`select count(*)::int as n from jobs where episode_id = $1`, [episodeId]);
    return rows[0].n;
  }

  async tryStartJob(
    tx: Queryable,
    ep: EpisodeRow,
    clip: ClipRow,
    o: {
      kind: "cut" | "render";
      look: Look;
      changes: LookChange[];
      index: number;
      // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
      prevRender: Record<string, any> | null;
      origin: AccountSurface;
      /** A restyle's request as sent (relative values unresolved), kept to know a repeat of it. */
      asked?: ClipLook;
    },
  ): Promise<StartedJob | PaymentRequired> {
    const jobId = randomUUID();
    let cents: number;
    try {
      cents = await this.deps.billing.chargeExport(tx, ep.account_id, jobId, o.index);
    } catch (err) {
      if (err instanceof PaymentRequired) return err;
      throw err;
    }
    // A clip whose captions were edited renders its edited words (clip-edits.ts).
    const edited = await editedRunInput(this.deps.storage, ep, clip, o.kind, jobId);
    // The whole look, spelled out: a stage's own default never stands in for the clip's setting.
    const set = this.looks.runOptions(o.look, o.kind);
    // The brand kit as a snapshot (and the cover art) in the run's input: later kit edits never reach this run.
    const brand = await brandRunInput(tx, { accountId: ep.account_id, episodeId: ep.id, kitId: o.look.brand_kit });
    const look = { ...o.look, brand_kit: brand.kit };
    const ids = {
      account_id: ep.account_id,
      livemode: true,
      episode_id: ep.id,
      clip_id: clip.id,
      job_id: jobId,
      ...brand.input,
    };
    let run: Run;
    if (o.kind === "cut") {
      run = await this.deps.runner.startRun(
        PIPELINES.cut,
        { ...ep.state, clip: clip.data, ...(o.prevRender ? { render: o.prevRender } : {}), ...ids, ...edited },
        { tx, origin: o.origin, originRef: `job:${jobId}`, set },
      );
    } else {
      run = await this.deps.runner.startRun(
        PIPELINES.render,
        { cut: clip.cut, ...(o.prevRender ? { render: o.prevRender } : {}), ...ids, ...edited },
        { tx, origin: o.origin, originRef: `job:${jobId}`, set },
      );
    }
    await tx.query(
      `insert into jobs (id, account_id, episode_id, clip_id, kind, status, run_id, ` +
        `options, changes, charged_cents) values ($1, $2, $3, $4, $5, 'queued', ` +
        `$6, $7, $8, $9)`,
      [
        jobId,
        ep.account_id,
        ep.id,
        clip.id,
        o.kind,
        run.id,
        JSON.stringify(o.asked ? { ...look, asked: o.asked } : look),
        JSON.stringify(o.changes),
        cents,
      ],
    );
    await this.refreshClip(tx, clip.id);
    return {
      job_id: jobId,
      clip_id: clip.id,
      number: clip.number,
      ref: clip.ref,
      kind: o.kind,
      status: "queued",
      charged_cents: cents,
    };
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
}
