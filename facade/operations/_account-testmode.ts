// Test keys' answers for the episode operations: the fixtures of config/testmode.yaml in the live
// answers' shapes. Nothing here starts, stores or charges anything.
import type { ClipLook, ClipRow } from "../../daemon/account/episodes.js";
import { changeLines, lookChanges, resolveLook, type Look } from "../../daemon/account/clip-look.js";
import { formatDuration } from "../_format.js";
import { ApiError } from "../errors.js";
import { loadTestFixtures, sampleClipLink, type SampleLinks } from "../testmode.js";
import { clipTiming } from "./_account-views.js";
import type { OperationContext } from "../registry.js";

/** The caller's key, which every account operation has (auth: key). */
export function _authOf(ctx: OperationContext) {
  if (!ctx.auth) throw new ApiError(401, "unauthorized", "an API key is required");
  return ctx.auth;
}

export function _notFound(what: string, value: string): ApiError {
  return new ApiError(404, "not_found", `no ${what} ${value} on this account`, { field: "id" });
}

// ---- test mode: the fixtures of config/testmode.yaml in the live answers' shapes -----------

type SampleClip = ReturnType<typeof loadTestFixtures>["clips"][number];
type SampleJob = ReturnType<typeof loadTestFixtures>["jobs"][number];

const _sampleClip = (c: SampleClip) => ({
  clip_id: c.clip_id,
  number: c.number,
  ref: `c${c.clip_id.slice(-6)}`,
  title: c.title,
  ...clipTiming({ start: c.start_seconds, end: c.end_seconds, title: c.title, hook: c.hook_title }),
  score: c.score,
  reasons: ["sample clip (test mode)"],
  about: null,
  cut_status: c.cut_status as ClipRow["cut_status"],
  export_status: c.export_status as ClipRow["export_status"],
  style: c.style,
});

/** Deterministic answers for test keys; an id that is not a sample id is not found. */
export const testAnswer = {
  episodeView() {
    const f = loadTestFixtures();
    const e = f.episode;
    return {
      episode_id: e.episode_id,
      name: e.name,
      status: e.status,
      duration: formatDuration(e.duration_seconds),
      duration_seconds: e.duration_seconds,
      source: "upload",
      content_type: e.content_type,
      progress: { stage: e.status, percent: 100, note: null },
      clips: f.clips.map(_sampleClip),
      charged_cents: 0,
      created_at: e.created_at,
      livemode: false,
    };
  },
  episodes() {
    return { episodes: [testAnswer.episodeView()], message: "test mode: the sample episode", livemode: false };
  },
  episode(id: string) {
    if (id.toLowerCase() !== loadTestFixtures().episode.episode_id) throw _notFound("episode", id);
    return testAnswer.episodeView();
  },
  episodeCreated() {
    const e = loadTestFixtures().episode;
    return {
      episode_id: e.episode_id,
      status: e.status,
      charged_cents: 0,
      message: "test mode: nothing is uploaded, started or charged; this is the sample episode",
      livemode: false,
    };
  },
  uploaded(id: string) {
    const e = testAnswer.episode(id);
    return { episode_id: e.episode_id, status: e.status, message: "test mode: nothing is imported", livemode: false };
  },
  /** One job per sample clip named (a clip named twice is one job), each as GET /jobs shows it. */
  async exported(links: SampleLinks, id: string, wanted: Array<number | string | { start: number; end: number }>) {
    testAnswer.episode(id);
    const f = loadTestFixtures();
    // biome-ignore lint/suspicious/noExplicitAny: test-mode answers mirror the job views
    const jobs: any[] = [];
    // biome-ignore lint/suspicious/noExplicitAny: test-mode answers mirror the job views
    const notStarted: any[] = [];
    const seen = new Set<string>();
    for (const w of wanted) {
      // A clip of one's own times needs the episode's transcript: the sample has none to snap to.
      if (typeof w === "object") {
        notStarted.push({
          clip: `${w.start}-${w.end}`,
          reason: "test_mode",
          message: "test mode: a clip of your own times is made with a live key only",
        });
        continue;
      }
      const c = f.clips.find((x) => x.number === w || _sampleClip(x).ref === w);
      const job = c && f.jobs.find((j) => j.clip_id === c.clip_id);
      if (c && seen.has(c.clip_id))
        notStarted.push({
          clip: w,
          reason: "duplicate",
          message: `clip ${c.number} is named twice; it is exported once`,
        });
      else if (c && job) {
        seen.add(c.clip_id);
        jobs.push({ ...(await _sampleJobView(links, job)), number: c.number, ref: _sampleClip(c).ref });
      } else
        notStarted.push({
          clip: w,
          reason: c ? "test_mode" : "not_found",
          message: c
            ? "test mode: this sample clip has no sample job"
            : `unknown clip reference ${typeof w === "string" ? `"${w}"` : w}`,
        });
    }
    if (!jobs.length) {
      throw new ApiError(
        400,
        "invalid_request",
        `no clip could be exported: ${notStarted.map((n) => n.message).join("; ")}`,
        { field: "clips", not_started: notStarted },
      );
    }
    return {
      episode_id: id,
      jobs,
      not_started: notStarted,
      charged_cents: 0,
      message: "test mode: nothing is rendered or charged; the jobs are the sample jobs",
      livemode: false,
    };
  },
  searched(id: string) {
    const e = testAnswer.episode(id);
    return {
      episode_id: id,
      status: "done",
      clips: e.clips,
      charged_cents: 0,
      message: "test mode: the sample clips",
      livemode: false,
    };
  },
  async job(links: SampleLinks, id: string) {
    const j = loadTestFixtures().jobs.find((x) => x.job_id === id.toLowerCase());
    if (!j) throw _notFound("job", id);
    return _sampleJobView(links, j);
  },
  clip(id: string) {
    const c = loadTestFixtures().clips.find((x) => x.clip_id === id.toLowerCase());
    if (!c) throw _notFound("clip", id);
    return c;
  },
  restyled(id: string, look: ClipLook, base: Look) {
    const c = testAnswer.clip(id);
    const job = loadTestFixtures().jobs.find((j) => j.clip_id === c.clip_id);
    if (!job)
      throw new ApiError(409, "clip_not_cut", `sample clip ${id} has not been cut`, { cut_status: c.cut_status });
    const sample: Look = { ...base, style: c.style ?? base.style };
    const changes = changeLines(lookChanges(sample, resolveLook(sample, look)));
    return {
      clip_id: c.clip_id,
      job_id: job.job_id,
      status: "queued",
      changes,
      charged_cents: 0,
      message: "test mode: nothing is rendered",
      livemode: false,
    };
  },
  /** The clip's own words on its own timeline (config/testmode.yaml lists them per clip). */
  captions(id: string) {
    const c = testAnswer.clip(id);
    const captions = (c.captions ?? []).map((s, i) => ({
      id: String(i + 1),
      start_seconds: s.start,
      end_seconds: s.end,
      speaker: s.speaker,
      text: s.text,
    }));
    return { name: c.title, captions };
  },
};

/** A sample job as GET /jobs/{id} shows it; a completed one has its download link. */
async function _sampleJobView(links: SampleLinks, j: SampleJob) {
  const f = loadTestFixtures();
  const done = j.status === "completed";
  const link = done ? await sampleClipLink(links, j.file_name) : undefined;
  return {
    job_id: j.job_id,
    kind: j.kind,
    status: j.status,
    clip_id: j.clip_id,
    episode_id: f.episode.episode_id,
    title: f.clips.find((c) => c.clip_id === j.clip_id)?.title ?? null,
    progress: j.progress,
    ...(link ? { download_url: link.url, download_expires_at: link.expires_at } : {}),
    changes: [],
    charged_cents: 0,
    created_at: f.episode.created_at,
    finished_at: done ? f.episode.created_at : null,
    livemode: false,
  };
}
