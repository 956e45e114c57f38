/**
 * How the account API shows episodes, clips and jobs: public statuses, progress as stage and
 * percent, human durations, and signed download links for rendered clips (named after the title).
 */
import type { ClipRow, EpisodeRow, JobRow } from "../../daemon/account/episodes.js";
import { EpisodeService } from "../../daemon/account/episodes.js";
import { ClipJobs } from "../../daemon/account/clip-jobs.js";
import { changeLines } from "../../daemon/account/clip-look.js";
import type { OperationContext } from "../registry.js";
import { downloadLink } from "../uploads.js";
import { formatDuration, formatLength, formatPosition } from "../_format.js";
import { etaSeconds } from "../../daemon/engine/progress.js";
import { hookTitleDropped } from "./_hook-dropped.js";

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60) || "clip";

// biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
function _clipLink(ctx: OperationContext, render: Record<string, any> | null | undefined, title: string | undefined) {
  if (!render?.key) return {};
  const link = downloadLink(ctx.services, {
    key: render.key,
    name: `${slug(title ?? "clip")}.mp4`,
    type: "video/mp4",
    origin: ctx.caller.linkOrigin,
  });
  return { download_url: link.url, download_expires_at: link.expires_at, ..._posterLinks(ctx, render, title) };
}

/** The rendered clip's poster (issue 19, item 5: the frame at the hook's first word, titled) as JPEG and WebP links. */
// biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
function _posterLinks(ctx: OperationContext, render: Record<string, any>, title: string | undefined) {
  const name = `${slug(title ?? "clip")}-poster`;
  const link = (key: unknown, ext: string, type: string) =>
    typeof key === "string"
      ? downloadLink(ctx.services, { key, name: `${name}.${ext}`, type, origin: ctx.caller.linkOrigin }).url
      : undefined;
  const jpeg = link(render.thumbnail_key, "jpg", "image/jpeg");
  const webp = link(render.poster_webp_key, "webp", "image/webp");
  return { ...(jpeg ? { poster_url: jpeg } : {}), ...(webp ? { poster_webp_url: webp } : {}) };
}

/** The described fields of a clip (positions, length, pieces, hook), from its exact seconds. */
export function clipTiming(c: {
  start: number;
  end: number;
  pieces?: unknown[] | null;
  duration?: number | null;
  title?: string | null;
  hook?: string | null;
}) {
  const length =
    c.duration ??
    (c.pieces as Array<{ start: number; end: number }> | undefined)?.reduce((a, p) => a + (p.end - p.start), 0) ??
    c.end - c.start;
  return {
    hook: c.hook || c.title || "",
    start: formatPosition(c.start),
    end: formatPosition(c.end),
    length: formatLength(length),
    pieces: Math.max(1, c.pieces?.length ?? 1),
    start_seconds: c.start,
    end_seconds: c.end,
  };
}

export function toClipView(ctx: OperationContext, c: ClipRow) {
  const title = c.data.title ?? `Clip ${c.number}`;
  return {
    clip_id: c.id,
    number: c.number,
    ref: c.ref,
    title,
    ...clipTiming({
      start: c.data.start,
      end: c.data.end,
      duration: c.data.duration,
      hook: c.data.hook,
      pieces: c.cut?.pieces ?? c.data.pieces,
      title,
    }),
    score: c.data.score?.value ?? null,
    reasons: c.data.score?.reasons ?? [],
    // Hook, coherence, payoff and delivery with a reason each; null on clips found before they existed.
    scores: c.data.scores ?? null,
    about: c.data.about ?? null,
    // The briefs this clip answers, best answers included when the clip was on the list already.
    answers: Array.isArray(c.data.answers) ? c.data.answers.map((a: { about: string }) => a.about) : [],
    cut_status: c.cut_status,
    export_status: c.export_status,
    style: c.render?.style ?? null,
    ...(c.export_status === "exported" || c.render ? _clipLink(ctx, c.render, c.data.title) : {}),
    ...hookTitleDropped(c.render, c.data.title),
  };
}

/** Where a waiting step stands in the shared step queue: `position` 1 is next for a free worker. */
function queueView(ahead: number | null | undefined): { position: number; ahead: number } | null {
  return typeof ahead === "number" ? { position: ahead + 1, ahead } : null;
}

export function toEpisodeView(ctx: OperationContext, ep: EpisodeRow, clips: ClipRow[]) {
  const status = EpisodeService.publicStatus(ep);
  const running = ep.run && (ep.run.state === "queued" || ep.run.state === "running");
  const stage = ep.status === "searching" ? "searching" : status;
  const percent =
    ep.status === "ready"
      ? 100
      : ep.status === "failed" || ep.status === "awaiting_upload"
        ? 0
        : Math.round(ep.run?.progress ?? 0);
  return {
    episode_id: ep.id,
    name: ep.name,
    status,
    ...(ep.failure ? { failure: ep.failure } : {}),
    duration: formatDuration(ep.duration_seconds),
    duration_seconds: ep.duration_seconds,
    source: ep.source_url ? "url" : "upload",
    content_type: ep.options.content_type ?? "podcast",
    progress: {
      stage,
      percent,
      note: running ? (ep.run?.note ?? null) : null,
      eta_seconds: running && ep.run ? etaSeconds(ep.run) : null,
    },
    queue: running ? queueView(ep.queue_ahead) : null,
    clips: clips.map((c) => toClipView(ctx, c)),
    ...(ep.status === "ready" && !clips.length ? noClipsHint(ep) : {}),
    charged_cents: ep.charged_cents,
    created_at: ep.created_at,
    livemode: true,
  };
}

/**
 * A ready episode without clips says why and what to try: a brief, another target length, a
 * better speech engine (pocketsphinx's words rarely make sentences worth a clip), or own times.
 */
function noClipsHint(ep: EpisodeRow): { hint: string; next_steps: string[] } {
  const engine = ep.state?.transcript?.engine as string | undefined;
  const words = Number(ep.state?.transcript?.words?.length ?? NaN);
  const why =
    Number.isFinite(words) && words < 40
      ? `its transcript has only ${words} words, too few for a clip`
      : "no stretch of its transcript scored as a self-contained moment";
  const steps = [
    `search it with a brief: POST /api/v1/episodes/${ep.id}/search with about (a topic said in it)`,
    `search it with another target length: POST /api/v1/episodes/${ep.id}/search with target_seconds (15 to 180)`,
    `cut your own times: POST /api/v1/episodes/${ep.id}/clips with clips [{start, end}] in seconds`,
  ];
  if (engine === "pocketsphinx")
    steps.push("make it again with a better speech engine: configure transcribe.engine whisper or openai");
  return { hint: `the clip search found no clips: ${why}`, next_steps: steps };
}

export function toJobView(ctx: OperationContext, job: JobRow) {
  const status = ClipJobs.publicJobStatus(job);
  return {
    job_id: job.id,
    kind: job.kind,
    status,
    clip_id: job.clip_id,
    episode_id: job.episode_id,
    title: job.clip_title ?? null,
    progress: status === "completed" ? 100 : status === "queued" ? 0 : Math.round(job.run?.progress ?? 0),
    eta_seconds: status === "running" && job.run ? etaSeconds(job.run) : null,
    queue: status === "queued" || status === "running" ? queueView(job.queue_ahead) : null,
    ...(status === "completed" ? _clipLink(ctx, job.result, job.clip_title ?? undefined) : {}),
    ...(status === "completed" ? hookTitleDropped(job.result, job.clip_title ?? undefined) : {}),
    ...(job.error ? { error: job.error } : {}),
    changes: changeLines(job.changes),
    charged_cents: job.charged_cents,
    created_at: job.created_at,
    finished_at: job.finished_at,
    livemode: true,
  };
}
