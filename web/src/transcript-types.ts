// The shapes of the transcript, results and free-page answers the site reads (split from types.ts,
// which re-exports them, so pages import every answer shape from one place).
import type { Segment, UploadTarget } from "./shared-types";

export type Downloads = { page?: string; txt?: string; srt?: string; vtt?: string };

/** The API's transcript (GET /transcripts/{id}); progress is 0–100. */
export interface Transcript {
  id: string;
  status: "queued" | "running" | "completed" | "failed";
  name?: string;
  url?: string;
  text?: string;
  language?: string | null;
  duration?: string | null;
  duration_seconds?: number | null;
  word_count?: number | null;
  progress: number;
  free?: boolean;
  charged_cents?: number;
  error?: { code: string; message: string };
  downloads: Downloads;
  created_at?: string;
  completed_at?: string | null;
}

/** POST /transcripts/uploads: the transcript to be and where its file goes. */
export interface TranscriptUpload {
  transcript_id: string;
  upload: UploadTarget;
}

/** GET /results/{token}: a transcript behind a results link, with its recording while it is kept. */
export interface ResultsAnswer {
  kind: "account" | "free";
  id: string;
  name?: string | null;
  status: "queued" | "running" | "completed" | "failed";
  text?: string | null;
  language?: string | null;
  duration?: string | null;
  duration_seconds?: number | null;
  word_count?: number | null;
  /** The timed lines, as the episode transcript's answer; null when there are none. */
  segments?: { segments: Segment[]; total?: number; truncated?: boolean } | null;
  downloads: { txt?: string; srt?: string; vtt?: string } | null;
  media?: { url: string; type?: string; expires_at?: string } | null;
  error?: { code: string; message: string };
  expires_at?: string;
}

/** GET /me's month of transcripts (the part the transcripts page shows). */
export interface MeUsage {
  usage: { month?: string; transcripts?: number; free_transcripts_used?: number };
  limits: { free_transcripts_per_month?: number; transcript_max_minutes?: number };
}

/** The free API's 202 (a link) and the free upload's. */
export interface FreeAccepted {
  id: string;
  poll_url: string;
  upload?: UploadTarget;
}

/** A free poll answer (docs/free-api.md "Poll"). */
export interface FreePoll {
  id: string;
  status: "processing" | "completed" | "failed";
  code?: string;
  elapsed_seconds?: number;
  poll_after_seconds?: number;
  duration_seconds?: number | null;
  word_count?: number;
  language?: string | null;
  language_note?: string;
  text?: string;
  srt?: string;
  vtt?: string;
  text_url?: string;
  srt_url?: string;
  vtt_url?: string;
  /** The kept recording, signed until the audio retention deletes it (an extension). */
  audio_url?: string;
  audio_expires_at?: string;
  note?: string;
  error?: { code: string; message: string; [field: string]: unknown };
}
