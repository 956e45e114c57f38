/**
 * Events: the one way an event is written. `recordEvent` runs inside the caller's transaction, the
 * same one that makes the state change the event describes, so a crash cannot lose an event and no
 * event exists for a change that rolled back. For an account's event it also enqueues the webhook
 * fan-out job in that transaction, so a committed event is always delivered (daemon/account/webhooks.ts).
 *
 * Two writers use it: the runner, for the events stages return (`_events`, the run's own record,
 * shown in run.json and by the CLI), and the domain services (episodes, transcripts), which write
 * the account's events with the data in the API's shapes at their state changes. Only the latter
 * go to webhooks; a stage's raw event never does, so nothing is delivered twice.
 */
import { randomUUID } from "node:crypto";
import type { QueueManager } from "./queue.js";
import type { Queryable } from "../store/db.js";

/** The event types an account can subscribe a webhook to. */
export const WEBHOOK_EVENT_TYPES = [
  "episode.ready",
  "episode.failed",
  "clip.ready",
  "clip.failed",
  "transcript.completed",
  "transcript.failed",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const FANOUT_QUEUE = "clipd-webhook-fanout";

/** A stored file the delivery turns into a signed download link under this data key. */
export interface EventLink {
  key: string;
  name: string;
  type?: string;
  /** A transcript's results page instead, where the delivering process serves the site (else the file). */
  results?: { source: "account" | "free"; id: string };
}

export interface EventInput {
  type: string;
  accountId: string | null;
  livemode: boolean;
  data: Record<string, unknown>;
  runId?: string | null;
  /** Data keys to fill with signed links when the event is delivered (links expire, so they are made then). */
  links?: Record<string, EventLink>;
  /** Enqueue webhook delivery (default: for account events of the webhook types). */
  deliver?: boolean;
  /**
   * false: write nothing. A stage policy says so for an event another writer records itself (an
   * API run's clip.ready comes from the episode service, in the API's shape); writing the stage's
   * copy as well left two rows for one event, of which only one was ever delivered.
   */
  record?: boolean;
}

/**
 * Writes the event and, for an account's webhook event, its fan-out job, in the caller's
 * transaction. Returns the event id, or null when `ev.record` is false and nothing was written.
 */
export async function recordEvent(tx: Queryable, ev: EventInput, queue?: QueueManager): Promise<string | null> {
  if (ev.record === false) return null;
  const id = randomUUID();
  await tx.query(
    `insert into events (id, type, run_id, account_id, livemode, data, links) values ($1, $2, $3, $4, $5, $6, $7)`,
    [
      id,
      ev.type,
      ev.runId ?? null,
      ev.accountId,
      ev.livemode,
      JSON.stringify(ev.data),
      ev.links ? JSON.stringify(ev.links) : null,
    ],
  );
  const deliver = ev.deliver ?? (ev.accountId !== null && (WEBHOOK_EVENT_TYPES as readonly string[]).includes(ev.type));
  if (deliver && ev.accountId) {
    if (!queue) throw new Error(`recordEvent: event ${ev.type} is to be delivered but no queue was given`);
    await queue.send(FANOUT_QUEUE, { eventId: id }, { tx, retryLimit: 5, retryDelay: 2 });
  }
  return id;
}
