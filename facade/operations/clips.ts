/**
 * The account API's clips and jobs: export (cut and render) clips, read a job, restyle a clip,
 * read its captions, and list the caption styles. Links are signed here. Test keys get the sample
 * data of facade/testmode.ts; nothing is started or charged for them.
 */
import type { ClipLook, ExportResult, RestyleResult } from "../../daemon/account/episodes.js";
import { changeLines, LOOK_FIELDS } from "../../daemon/account/clip-look.js";
import { ApiError } from "../errors.js";
import { defineOperation, settleAnswer, uuidParam, type OperationContext } from "../registry.js";
import { R, type LookBody } from "./_account-requests.js";
import { S } from "./_account-schemas.js";
import { toJobView } from "./_account-views.js";
import { _authOf, _notFound, testAnswer } from "./_account-testmode.js";

const id = { id: uuidParam };
const tags = ["episodes"];

/** Turns the request's look into service options: style names become ids. */
function _look(ctx: OperationContext, body: LookBody): ClipLook {
  const look: ClipLook = {};
  if (body.style !== undefined) {
    const style = ctx.services.episodes.resolveStyle(body.style);
    if (!style) {
      const known = ctx.services.episodes
        .styles()
        .map((s) => s.id)
        .join(", ");
      throw new ApiError(
        400,
        "invalid_request",
        `body field "style": unknown style "${body.style}"; use an id or name from GET /api/v1/styles (${known})`,
        { field: "style" },
      );
    }
    look.style = style;
  }
  for (const k of [
    "caption_size",
    "caption_position",
    "hook_title",
    "hook_title_anyway",
    "fit",
    "background",
    "aspect_ratio",
    "brand_kit",
    "censor",
    "emphasis",
    "emoji",
    "pace",
    "loudness",
    "layout",
  ] as const)
    if (body[k] !== undefined) Object.assign(look, { [k]: body[k] });
  return look;
}

export const exportClips = defineOperation({
  id: "exportClips",
  method: "POST",
  path: "/api/v1/episodes/{id}/clips",
  scope: "clips.write",
  tags,
  params: id,
  idempotent: true,
  summary: "Cut and render clips of an episode: one job per clip",
  body: R.exportBody,
  responses: {
    202: {
      description: "Jobs started; clips not started are listed with reasons and not charged",
      schema: S.exportAnswer,
    },
    400: { description: "Invalid request, or no clip could be started" },
    402: { description: "Payment required", schema: S.paymentError },
    404: { description: "Not on this account" },
    409: { description: "episode_not_ready" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const look = _look(ctx, ctx.body);
    ctx.status = 202;
    if (!auth.livemode)
      return testAnswer.exported(
        { services: ctx.services, origin: ctx.caller.linkOrigin },
        ctx.params.id,
        ctx.body.clips,
      );
    const hook = settleAnswer(ctx, 202, (r: ExportResult) => ({
      episode_id: ctx.params.id,
      jobs: r.jobs.map((j) => ({
        job_id: j.job_id,
        clip_id: j.clip_id,
        number: j.number,
        ref: j.ref,
        kind: j.kind,
        status: j.status,
        charged_cents: j.charged_cents,
        ...(j.existing ? { existing: true } : {}),
      })),
      not_started: r.not_started,
      charged_cents: r.charged_cents,
      message: exportMessage(r),
      livemode: true,
    }));
    await ctx.services.episodes.clips.exportClips(
      auth.account.id,
      ctx.params.id,
      { clips: ctx.body.clips, look, origin: ctx.caller.surface },
      hook.within,
    );
    return hook.answer;
  },
});

/** How many jobs started, how many were there already (same look) and how many could not start. */
function exportMessage(r: ExportResult): string {
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  const made = r.jobs.filter((j) => j.existing).length;
  const started = r.jobs.length - made;
  return [
    `${plural(started, "job")} started`,
    ...(made ? [`${plural(made, "clip")} already made with this look (its job is listed, nothing charged)`] : []),
    ...(r.not_started.length ? [`${r.not_started.length} not started (see not_started)`] : []),
    "poll GET /api/v1/jobs/{id}",
  ].join("; ");
}

export const getJob = defineOperation({
  id: "getJob",
  method: "GET",
  path: "/api/v1/jobs/{id}",
  summary: "A cut or render job; download_url once completed",
  scope: "clips.read",
  tags: ["jobs"],
  params: id,
  responses: { 200: { description: "The job", schema: S.job }, 404: { description: "Not on this account" } },
  async handler(ctx) {
    const auth = _authOf(ctx);
    if (!auth.livemode) return testAnswer.job({ services: ctx.services, origin: ctx.caller.linkOrigin }, ctx.params.id);
    const job = await ctx.services.episodes.clips.getJob(auth.account.id, ctx.params.id);
    if (!job) throw _notFound("job", ctx.params.id);
    return toJobView(ctx, job);
  },
});

export const restyleClip = defineOperation({
  id: "restyleClip",
  method: "PATCH",
  path: "/api/v1/clips/{id}",
  scope: "clips.write",
  tags: ["clips"],
  params: id,
  idempotent: true,
  summary:
    "Restyle a cut clip: what the body names changes, the rest of its look stays (fit or background cut it again)",
  body: R.restyleBody,
  responses: {
    202: {
      description:
        "A render job started; or, when nothing resolves to a new value, nothing " +
        "started (changes empty, job_id the job that made the current look)",
      schema: S.restyleAnswer,
    },
    400: {
      description:
        'Invalid request; a body naming no look field and not save_as_default: true names field "body" ' +
        "(save_as_default: true alone saves the clip's current look as the account's defaults: no render, no charge)",
    },
    402: { description: "Payment required", schema: S.paymentError },
    404: { description: "Not on this account" },
    409: { description: "clip_not_cut" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const body = ctx.body;
    const look = _look(ctx, body);
    // save_as_default: true with no look field saves the clip's current look as the defaults: the
    // restyle resolves to no change, so nothing renders and nothing is charged (ClipJobs.restyle).
    if (!Object.keys(look).length && body.save_as_default !== true) {
      throw new ApiError(
        400,
        "invalid_request",
        `body names nothing to change: give at least one of ${LOOK_FIELDS.join(", ")}, ` +
          "or save_as_default: true to save the clip's current look as the defaults",
        { field: "body" },
      );
    }
    ctx.status = 202;
    if (!auth.livemode) return testAnswer.restyled(ctx.params.id, look, ctx.services.episodes.looks.serviceLook());
    const saving = body.save_as_default === true;
    const saved = saving ? "; saved as the account's defaults for new clips" : "";
    const hook = settleAnswer(ctx, 202, ({ job, changes, repeated }: RestyleResult) => {
      const lines = changeLines(changes);
      if (repeated)
        return {
          clip_id: ctx.params.id,
          job_id: job.job_id,
          status: job.status,
          changes: lines,
          charged_cents: 0,
          message:
            "a repeat: the clip's latest job was started by this same request, so nothing new started and " +
            `nothing was charged${saved}; job_id is that job. To step again, name the value ` +
            "(caption_size: small … extra_large, caption_position: top … bottom)",
          livemode: true,
        };
      return {
        clip_id: ctx.params.id,
        job_id: job.job_id,
        status: job.status,
        changes: lines,
        charged_cents: job.charged_cents,
        message: lines.length
          ? `${job.kind === "cut" ? "cutting and rendering" : "rendering"} the clip ` +
            `again (${lines.join("; ")})${saved}; poll GET /api/v1/jobs/${job.job_id}`
          : `nothing to change: the clip already looks like this, so nothing started ` +
            `and nothing was charged${saved}; job_id is the job that made this look`,
        livemode: true,
      };
    });
    await ctx.services.episodes.clips.restyle(
      auth.account.id,
      ctx.params.id,
      look,
      { saveAsDefault: saving, origin: ctx.caller.surface },
      hook.within,
    );
    return hook.answer;
  },
});

export const clipCaptions = defineOperation({
  id: "clipCaptions",
  method: "GET",
  path: "/api/v1/clips/{id}/captions",
  scope: "clips.read",
  tags: ["clips"],
  params: id,
  summary: "A clip's captions on its own timeline, filtered by time or text",
  query: R.captionsQuery,
  responses: {
    200: { description: "Captions", schema: S.captions },
    400: { description: "Invalid query" },
    404: { description: "Not on this account" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    const q = _captionQuery(ctx.query);
    let clipId = ctx.params.id;
    let name: string;
    let all: Array<{ id: string; start_seconds: number; end_seconds: number; speaker: string; text: string }>;
    if (!auth.livemode) ({ name, captions: all } = testAnswer.captions(clipId));
    else {
      const r = await ctx.services.episodes.clips.captions(auth.account.id, clipId);
      clipId = r.clip.id;
      name = r.clip.data.title ?? `Clip ${r.clip.number}`;
      all = r.captions;
    }
    let list = all;
    if (q.at !== undefined) list = list.filter((c) => c.start_seconds <= q.at! && q.at! < c.end_seconds + 1e-9);
    if (q.from !== undefined) list = list.filter((c) => c.end_seconds > q.from!);
    if (q.to !== undefined) list = list.filter((c) => c.start_seconds < q.to!);
    if (q.q) list = list.filter((c) => c.text.toLowerCase().includes(q.q!.toLowerCase()));
    return { clip_id: clipId, name, total: list.length, captions: list.slice(0, q.limit), livemode: auth.livemode };
  },
});

/** Query values arrive as strings; the schema checks their shape, this their range. */
function _captionQuery(raw: Record<string, string | undefined>): {
  at?: number;
  from?: number;
  to?: number;
  q?: string;
  limit: number;
} {
  const num = (k: "at" | "from" | "to") => (raw[k] === undefined ? undefined : Number(raw[k]));
  const limit = raw.limit === undefined ? 40 : Number(raw.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200)
    throw new ApiError(400, "invalid_request", `query field "limit" must be a whole number from 1 to 200`, {
      field: "limit",
    });
  const out = { at: num("at"), from: num("from"), to: num("to"), q: raw.q, limit };
  if (out.from !== undefined && out.to !== undefined && out.from > out.to)
    throw new ApiError(400, "invalid_request", `query field "to" must not be before "from"`, { field: "to" });
  return out;
}

export const listStyles = defineOperation({
  id: "listStyles",
  method: "GET",
  path: "/api/v1/styles",
  summary: "Caption styles for clips",
  scope: "clips.read",
  tags: ["clips"],
  responses: { 200: { description: "Styles", schema: S.styles } },
  handler(ctx) {
    return { styles: ctx.services.episodes.styles(), livemode: _authOf(ctx).livemode };
  },
});
