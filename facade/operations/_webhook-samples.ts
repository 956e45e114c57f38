// The webhook test's sample events, one per event type: data, not routing, so kept apart from the
// operations in webhooks.ts.

/** What POST /webhooks/{id}/test sends: a small, clearly marked sample of each event's data. */
const SAMPLE_ID = "00000000-0000-4000-8000-000000000000";
export const SAMPLES: Record<string, Record<string, unknown>> = {
  "episode.ready": {
    episode_id: SAMPLE_ID,
    name: "Sample episode",
    status: "ready",
    clips: [],
    search: { about: null, state: "succeeded", clips_added: 0 },
  },
  "episode.failed": {
    episode_id: SAMPLE_ID,
    name: "Sample episode",
    status: "failed",
    failure: { code: "sample", message: "a sample failure" },
  },
  "clip.ready": {
    job_id: SAMPLE_ID,
    kind: "render",
    status: "completed",
    clip_id: SAMPLE_ID,
    episode_id: SAMPLE_ID,
    title: "Sample clip",
    progress: 100,
  },
  "clip.failed": {
    job_id: SAMPLE_ID,
    kind: "render",
    status: "failed",
    clip_id: SAMPLE_ID,
    episode_id: SAMPLE_ID,
    title: "Sample clip",
    error: { code: "sample", message: "a sample failure" },
  },
  "transcript.completed": { id: SAMPLE_ID, status: "completed", name: "Sample transcript", downloads: {} },
  "transcript.failed": {
    id: SAMPLE_ID,
    status: "failed",
    name: "Sample transcript",
    error: { code: "sample", message: "a sample failure" },
  },
};
