/**
 * What follows from an account-API run's end, inside the transaction that ends it (runner.onRunEnd):
 * an import charges the episode and starts its clip search; a search adds clips and marks the
 * episode ready (or failed, when the first search fails); a cut or render job completes or fails
 * and updates its clip. Each records its webhook event (episode.ready, episode.failed, clip.ready,
 * clip.failed) in the same transaction, so state, charge and event commit together, once.
 */
import { randomUUID } from "node:crypto";
import { changeLines } from "./clip-look.js";
import { CANCELLED, toEpisode, toJob, type EpisodeRow } from "./episode-rows.js";
import type { ClipRow, EpisodeDeps } from "./episode-rows.js";

/** What the run-end hooks need of the episode service (kept here so neither file imports the other). */
export interface EpisodeSteps {
  startSearch(
    tx: Queryable,
    ep: EpisodeRow,
    opts: { about?: string; target_seconds?: number; origin: AccountSurface },
    existing: unknown[],
  ): Promise<string>;
  clipsOf(episodeId: string, q?: Queryable): Promise<ClipRow[]>;
  refreshClip(tx: Queryable, clipId: string): Promise<void>;
}
import { recordEvent } from "../engine/events.js";
import type { Run } from "../engine/runner.js";
import { isAccountSurface, type AccountSurface } from "./surfaces.js";
import type { Queryable } from "../store/db.js";

export class EpisodeRunEnds {
  constructor(
    private readonly episodes: EpisodeSteps,
    private readonly deps: EpisodeDeps,
  ) {}

  async onRunEnd(tx: Queryable, run: Run): Promise<void> {
    if (!isAccountSurface(run.origin) || !run.origin_ref) return;
    const [kind, id] = run.origin_ref.split(":", 2) as [string, string];
    if (kind === "episode") await this.importEnded(tx, run, id);
    else if (kind === "search") await this.searchEnded(tx, run, id);
    else if (kind === "job") await this.jobEnded(tx, run, id);
  }

  private async importEnded(tx: Queryable, run: Run, id: string) {
    const { rows } = await tx.query(`select * from episodes where id = $1 and run_id = $2 for update`, [id, run.id]);
    if (!rows[0]) return;
    const ep = toEpisode(rows[0]);
    if (run.state !== "succeeded") {
      await this.fail(tx, id, run);
      return;
    }
    const { source, media, transcript } = run.output;
    const state = { source, media, transcript };
    const seconds = Number(media?.duration ?? transcript?.duration ?? 0);
    // The episode is charged as its clip search starts, by its measured length.
    const charge = await this.deps.billing.chargeEpisode(tx, ep.account_id, id, seconds, run.origin as AccountSurface);
    await tx.query(
      `update episodes set state = $2, duration_seconds = $3, charged_cents = ` +
        `charged_cents + $4, charged_at = now(), updated_at = now() where id = $1`,
      [id, JSON.stringify(state), seconds, charge.cents],
    );
    await this.episodes.startSearch(
      tx,
      { ...ep, state },
      { about: ep.options.about, target_seconds: ep.options.target_seconds, origin: run.origin as AccountSurface },
      [],
    );
    this.deps.log.info(
      { episodeId: id, seconds, cents: charge.cents, from: charge.from },
      "episode charged, clip search started",
    );
  }

  private async searchEnded(tx: Queryable, run: Run, id: string) {
    const { rows } = await tx.query(`select * from episodes where id = $1 and search_run_id = $2 for update`, [
      id,
      run.id,
    ]);
    if (!rows[0]) return;
    const ep = toEpisode(rows[0]);
    const searches = ep.searches.map((s) => (s.run_id === run.id ? { ...s, state: run.state } : s));
    const entry = searches.find((s) => s.run_id === run.id);
    if (run.state === "succeeded") {
      // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
      const found: any[] = Array.isArray(run.output.clips) ? run.output.clips : [];
      let added = 0;
      for (const c of found) {
        const r = await tx.query(
          // A clip already listed comes back from a brief's search marked as one of its answers:
          // only that mark is taken, the rest of the row stays as it was.
          `insert into clips (id, episode_id, account_id, number, ref, data) values ($1, $2, $3, $4, $5, $6)
             on conflict (episode_id, ref) do update set data = clips.data || jsonb_build_object('answers', excluded.data->'answers')
             where excluded.data ? 'answers'
           returning (xmax = 0) as inserted`,
          [randomUUID(), id, ep.account_id, c.number, c.ref, JSON.stringify(c)],
        );
        // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
        added += r.rows.filter((x: any) => x.inserted).length;
      }
      if (entry) entry.added = added;
      await tx.query(`update episodes set status = 'ready', searches = $2, updated_at = now() where id = $1`, [
        id,
        JSON.stringify(searches),
      ]);
      await this.readyEvent(tx, ep, run, { about: entry?.about ?? null, state: "succeeded", added });
      return;
    }
    if (entry) entry.error = run.error;
    const { rows: had } = await tx.query(`select count(*)::int as n from clips where episode_id = $1`, [id]);
    if (had[0].n === 0 && searches.length === 1) {
      await tx.query(`update episodes set searches = $2 where id = $1`, [id, JSON.stringify(searches)]);
      await this.fail(tx, id, run);
    } else {
      // A later search failing leaves the episode and its clips as they were.
      await tx.query(`update episodes set status = 'ready', searches = $2, updated_at = now() where id = $1`, [
        id,
        JSON.stringify(searches),
      ]);
      await this.readyEvent(tx, ep, run, { about: entry?.about ?? null, state: "failed", added: 0, error: run.error });
    }
  }

  /** episode.ready, after every search (a failed later search leaves the episode ready as it was). */
  private async readyEvent(
    tx: Queryable,
    ep: EpisodeRow,
    run: Run,
    search: { about: string | null; state: string; added: number; error?: unknown },
  ) {
    const clips = await this.episodes.clipsOf(ep.id, tx);
    const data = {
      episode_id: ep.id,
      name: ep.name,
      status: "ready",
      duration_seconds: ep.duration_seconds ?? ep.state?.media?.duration ?? null,
      search: {
        about: search.about,
        state: search.state,
        clips_added: search.added,
        ...(search.error ? { error: search.error } : {}),
      },
      clips: clips.map((c) => ({
        clip_id: c.id,
        number: c.number,
        ref: c.ref,
        title: c.data.title ?? null,
        start_seconds: c.data.start,
        end_seconds: c.data.end,
        score: c.data.score?.value ?? null,
        about: c.data.about ?? null,
      })),
      message:
        search.state === "succeeded"
          ? `episode "${ep.name}" is ready: ${search.added} new clip${search.added === 1 ? "" : "s"}, ` +
            `${clips.length} in all; export them with POST /api/v1/episodes/${ep.id}/clips`
          : `the clip search${search.about ? ` about "${search.about}"` : ""} failed; ` +
            `the episode and its ${clips.length} clips are as they were`,
    };
    await recordEvent(
      tx,
      { type: "episode.ready", accountId: ep.account_id, livemode: ep.livemode, runId: run.id, data },
      this.deps.runner.queue,
    );
  }

  private async fail(tx: Queryable, id: string, run: Run) {
    // A run the account cancelled (episode-lifecycle.ts) says so, not "failed".
    const e =
      run.state === "cancelled" ? CANCELLED : (run.error ?? { code: "failed", message: `run ${run.id} ${run.state}` });
    const failure = { code: e.code, message: e.message, ...(e.stage ? { stage: e.stage } : {}) };
    const { rows } = await tx.query(
      `update episodes set status = 'failed', failure = $2, updated_at = now() ` +
        `where id = $1 returning account_id, livemode, name`,
      [id, JSON.stringify(failure)],
    );
    const ep = rows[0];
    const data = {
      episode_id: id,
      name: ep.name,
      status: "failed",
      failure,
      message: `episode "${ep.name}" failed: ${failure.message}`,
    };
    await recordEvent(
      tx,
      { type: "episode.failed", accountId: ep.account_id, livemode: ep.livemode, runId: run.id, data },
      this.deps.runner.queue,
    );
  }

  private async jobEnded(tx: Queryable, run: Run, id: string) {
    const { rows } = await tx.query(`select * from jobs where id = $1 and run_id = $2 for update`, [id, run.id]);
    if (!rows[0]) return;
    const job = toJob(rows[0]);
    if (run.state === "succeeded") {
      await tx.query(
        `update jobs set status = 'completed', result = $2, finished_at = now(), updated_at = now() where id = $1`,
        [id, JSON.stringify(run.output.render ?? null)],
      );
      if (job.kind === "cut") {
        const cut = { ...run.output.cut, background: job.options.background ?? null };
        await tx.query(`update clips set cut = $2, render = $3 where id = $1`, [
          job.clip_id,
          JSON.stringify(cut),
          JSON.stringify(run.output.render),
        ]);
      } else {
        await tx.query(`update clips set render = $2 where id = $1`, [job.clip_id, JSON.stringify(run.output.render)]);
      }
    } else {
      // A run the account cancelled (episode-lifecycle.ts) says so, not "failed".
      const e =
        run.state === "cancelled"
          ? CANCELLED
          : (run.error ?? { code: "failed", message: `run ${run.id} ${run.state}` });
      // Any failure of the run is the service's: a paid export gets its charge back, and the job
      // then shows what it cost in the end (nothing).
      const refunded = job.charged_cents > 0 ? await this.deps.billing.refundExport(tx, job.account_id, id) : 0;
      await tx.query(
        `update jobs set status = 'failed', error = $2, charged_cents = charged_cents ` +
          `- $3, finished_at = now(), updated_at = now() where id = $1`,
        [id, JSON.stringify({ code: e.code, message: e.message }), refunded],
      );
    }
    await this.episodes.refreshClip(tx, job.clip_id);
    await this.jobEvent(tx, run, id);
  }

  /** clip.ready or clip.failed: the job's fields (as GET /jobs/{id}) plus episode_id and a message. */
  private async jobEvent(tx: Queryable, run: Run, id: string) {
    const { rows } = await tx.query(
      `select j.*, c.number as clip_number, c.ref as clip_ref, c.data->>'title' ` +
        `as clip_title from jobs j join clips c on c.id = j.clip_id where j.id = $1`,
      [id],
    );
    const job = toJob(rows[0]);
    const clip = rows[0] as { clip_number: number; clip_ref: string; clip_title: string | null };
    const ok = job.status === "completed";
    const name = clip.clip_title ?? `Clip ${clip.clip_number}`;
    const data: Record<string, unknown> = {
      job_id: job.id,
      kind: job.kind,
      status: job.status,
      clip_id: job.clip_id,
      episode_id: job.episode_id,
      title: clip.clip_title,
      progress: ok ? 100 : (run.progress ?? 0),
      changes: changeLines(job.changes),
      charged_cents: job.charged_cents,
      created_at: job.created_at,
      finished_at: job.finished_at,
      ...(job.error ? { error: job.error } : {}),
      message: ok
        ? `"${name}" is ready: download it from download_url (the link is valid 7 days)`
        : `"${name}" could not be ${job.kind === "cut" ? "cut" : "rendered"}: ` +
          (job.error?.message ?? "the job failed"),
    };
    const key = job.result?.key as string | undefined;
    const links =
      ok && key
        ? {
            download_url: {
              key,
              name: `clip-${String(clip.clip_number).padStart(2, "0")}-${clip.clip_ref}.mp4`,
              type: "video/mp4",
            },
          }
        : undefined;
    await recordEvent(
      tx,
      {
        type: ok ? "clip.ready" : "clip.failed",
        accountId: job.account_id,
        livemode: run.input.livemode !== false,
        runId: run.id,
        data,
        links,
      },
      this.deps.runner.queue,
    );
  }
}
