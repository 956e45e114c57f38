/**
 * The account rule for the events a stage returns (`_events`, e.g. from the notify stage). The
 * engine writes them as the run's own record; this decides whose they are and whether they reach
 * the account's webhooks. The composition root hands it to the runner (daemon/boot/app.ts).
 *
 * For work from an account surface (API, website, tool server) the account's webhook events come from the domain
 * services (episodes,
 * transcripts), in the API's shapes, so a stage's raw event is not written at all: one row per
 * event, delivered once. Work from the watch folder or the CLI that names an
 * account (watch.account_id, --account) has no such service, so its stage events are the account's
 * events: live, tagged with where the work came from, and delivered.
 */
import type { StageEventPolicy } from "../engine/runner.js";
import { isAccountSurface } from "./surfaces.js";

export const accountStageEvent: StageEventPolicy = (run, event) => {
  const accountId: string | null = run.input.account_id ?? null;
  const deliverable = !isAccountSurface(run.origin) && Boolean(accountId);
  // The domain service records this run's events itself, under the same types: a second row from
  // the stage would be a copy that is never delivered (two clip.ready rows for one render).
  const serviceWritesIt = Boolean(accountId) && !deliverable;
  return {
    ...event,
    accountId,
    livemode: deliverable ? true : Boolean(run.input.livemode),
    data: { ...event.data, ...(deliverable ? { origin: run.origin, origin_ref: run.origin_ref } : {}) },
    // undefined: events.ts's own rule (an account's event of a webhook type is delivered).
    deliver: deliverable ? undefined : false,
    record: !serviceWritesIt,
  };
};
