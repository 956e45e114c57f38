// The shapes of the answers the site reads (docs/website.md). Fields the server may leave out are
// optional, so a page shows what it has rather than breaking.

import type { UploadTarget } from "./shared-types";

export interface AccountSummary {
  id: string;
  email: string;
  email_verified: boolean;
  plan: boolean;
  credit_cents?: number;
  billing_review: boolean;
  created_at?: string;
}

export interface Session {
  signed_in: boolean;
  account?: AccountSummary;
  csrf_token: string;
  email_enabled: boolean;
  /** false: only the operator makes accounts. */
  signup_open?: boolean;
  /** The free tier's limits as configured (anon_minutes, key_minutes, anon_per_day, …). */
  free_limits?: Record<string, number>;
  payments: { provider?: string; packs_cents?: number[]; plan_cents_per_month?: number };
}

export type Scope = "clips.read" | "clips.write" | "transcripts" | "webhooks";
export const SCOPES: Scope[] = ["clips.read", "clips.write", "transcripts", "webhooks"];

export interface ApiKey {
  id: string;
  name: string | null;
  prefix: string;
  mode: "live" | "test";
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at?: string | null;
  status: "active" | "revoked" | "expired";
}

export interface CreatedKey extends ApiKey {
  key: string;
}

export interface Attempt {
  attempt: number;
  at: string;
  status_code: number | null;
  latency_ms: number;
  response?: string | null;
  error?: string | null;
}

export interface Delivery {
  id: string;
  event: string;
  test?: boolean;
  status: "pending" | "delivered" | "failed";
  created_at: string;
  next_attempt_at?: string | null;
  attempts: Attempt[];
  attempt_count?: number;
  response_code?: number | null;
  request_body?: string;
  response_body?: string | null;
}

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  disabled_reason?: string | null;
  created_at: string;
  recent_deliveries?: Delivery[];
  secret?: string;
}

export const WEBHOOK_EVENTS = [
  "episode.ready",
  "episode.failed",
  "clip.ready",
  "clip.failed",
  "transcript.completed",
  "transcript.failed",
];

export interface TestResult {
  delivery_id: string;
  event: string;
  delivered: boolean;
  status: number | null;
  error?: string;
}

// ---- The studio (episodes, clips, jobs): the API's own answers, read under /web ----

export type EpisodeStatus = "awaiting_upload" | "importing" | "transcribing" | "searching" | "ready" | "failed";

export interface Clip {
  clip_id: string;
  number: number;
  ref: string;
  title: string;
  hook: string;
  start: string;
  end: string;
  length: string;
  pieces: number;
  start_seconds: number;
  end_seconds: number;
  score: number | null;
  reasons: string[];
  /** Hook, coherence, payoff and delivery, 0–100 with a reason each; null on older clips. */
  scores?: Record<"hook" | "coherence" | "payoff" | "delivery", { value: number; reason: string }> | null;
  about: string | null;
  /** The briefs this clip answers, including briefs searched after it was listed (search `answers`). */
  answers?: string[];
  cut_status: "not_cut" | "cutting" | "cut" | "failed";
  export_status: "none" | "rendering" | "exported" | "failed";
  style: string | null;
  download_url?: string;
  /** The rendered clip's poster (JPEG), once it has one. */
  poster_url?: string;
  /** hook_title true left no box: the title was heard with low confidence; two restyles that draw one. */
  hook_title_dropped?: {
    reason: "low_confidence";
    message: string;
    unsure_words: Array<{ word: string; confidence: number }>;
    choices: Array<{ choice: "burn_anyway" | "own_words"; description: string; restyle: Record<string, unknown> }>;
  };
}

/** A waiting step's place in the step queue shared by every account (`position` 1 is next). */
export interface QueueSpot {
  position: number;
  ahead: number;
}

export interface Episode {
  episode_id: string;
  name: string;
  status: EpisodeStatus;
  failure?: { code: string; message: string; stage?: string };
  duration: string | null;
  duration_seconds: number | null;
  source?: "url" | "upload";
  content_type?: string;
  progress: { stage: string; percent: number; note?: string | null; eta_seconds?: number | null };
  /** Where its waiting step stands in the shared queue; null while a step runs. */
  queue?: QueueSpot | null;
  clips: Clip[];
  created_at?: string;
}

export interface EpisodeCreated {
  episode_id: string;
  status: EpisodeStatus;
  upload?: UploadTarget;
  message?: string;
}

export interface Job {
  job_id: string;
  kind: "cut" | "render";
  status: "queued" | "running" | "completed" | "failed";
  clip_id: string;
  title: string | null;
  progress: number;
  eta_seconds?: number | null;
  queue?: QueueSpot | null;
  download_url?: string;
  poster_url?: string;
  error?: { code: string; message: string };
  changes?: string[];
}

export interface StartedJob {
  job_id: string;
  clip_id: string;
  number?: number;
  kind: "cut" | "render";
  status: Job["status"];
}

export interface ExportAnswer {
  jobs: StartedJob[];
  not_started: Array<{ clip: number | string; reason: string; message: string }>;
  message: string;
}

export interface RestyleAnswer {
  clip_id: string;
  job_id: string;
  status: Job["status"];
  changes: string[];
  message: string;
}

export interface CaptionStyle {
  id: string;
  name: string;
  description: string;
}

/** A clip's look: what GET /me calls `defaults` and what a cut or restyle may name. */
export interface ClipLook {
  style: string;
  caption_size: "small" | "medium" | "large" | "extra_large";
  caption_position: "top" | "middle" | "lower" | "bottom";
  /** true: the clip's title; a string: these words; false: none. */
  hook_title: boolean | string;
  fit: "fill" | "whole";
  background: string;
  /** The clip's shape; older servers leave it out (9:16). */
  aspect_ratio?: "9:16" | "1:1" | "4:5" | "16:9";
  /** Clean captions; older servers leave them out (off, on, off). */
  censor?: "off" | "mask" | "bleep";
  emphasis?: boolean;
  emoji?: boolean;
  /** How the camera frames people with fit fill; older servers leave it out (auto). */
  layout?: "auto" | "follow" | "split" | "whole";
}

export interface Caption {
  id: string;
  start_seconds: number;
  end_seconds: number;
  speaker: string;
  text: string;
}

export interface Piece {
  start: number;
  end: number;
}

export interface EpisodeMedia {
  source: { url: string; type: string; kind?: "audio" | "video" | null; expires_at: string };
  duration_seconds: number | null;
  /** Each clip's pieces in source seconds (absent from older servers: the page then plays start to end). */
  clips?: Array<{ clip_id: string; pieces: Piece[] }>;
}

// Shapes both the studio and the transcript pages read, and the transcript, results and free-page
// answers (docs/website.md "The studio and the free page"), each from its own module.
export type * from "./shared-types";
export type * from "./transcript-types";
