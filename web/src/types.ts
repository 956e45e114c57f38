// The shapes of the answers the site reads (docs/website.md). Fields the server may leave out are
// optional, so a page shows what it has rather than breaking.

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

export const WEBHOOK_EVENTS = ["episode.ready", "episode.failed", "clip.ready", "clip.failed", "transcript.completed", "transcript.failed"];

export interface TestResult {
  delivery_id: string;
  event: string;
  delivered: boolean;
  status: number | null;
  error?: string;
}
