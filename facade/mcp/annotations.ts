/**
 * What each write tool does to the account, as MCP annotations a client may act on (asking the
 * user first, retrying freely). Written per tool because the HTTP method does not say it: a POST
 * may repeat harmlessly (episode_uploaded) and a PATCH replaces what was there. Reads (GET) are
 * read-only, idempotent and touch only the account's data. test/api/mcp-annotations.test.ts calls
 * every write tool twice and checks these against what the second call did.
 *
 * - idempotent: a repeat with the same arguments has no further effect (no new row, run or charge).
 * - destructive: something the account had is replaced or removed.
 * - openWorld: the tool reaches beyond the account's own data (fetches or posts to a user's URL).
 */
export interface Effects {
  idempotent: boolean;
  destructive: boolean;
  openWorld: boolean;
}

const effects = (idempotent: boolean, destructive: boolean, openWorld = false): Effects => ({
  idempotent,
  destructive,
  openWorld,
});

/** Every tool that is not a GET, by name; a tool missing here fails tools.ts at start-up. */
export const WRITE_EFFECTS: Record<string, Effects> = {
  // A new episode each call, fetched from source_url when given.
  create_episode: effects(false, false, true),
  // Once the import has started a repeat answers "nothing to do".
  episode_uploaded: effects(true, false),
  // A clip whose look has not changed answers its existing job (clip-jobs.ts).
  export_clips: effects(true, false),
  // Without a brief a repeat searches again; with one it answers "done" once the first ended.
  search_episode: effects(false, false),
  // A repeat answers the clip's current job, relative steps ("bigger") included (ClipJobs.restyle).
  restyle_clip: effects(true, true),
  // The same edits again change no word; the render starts once per change.
  edit_clip_captions: effects(false, true),
  cancel_episode: effects(true, true),
  delete_episode: effects(true, true),
  create_brand_kit: effects(false, false),
  update_brand_kit: effects(true, true),
  delete_brand_kit: effects(true, true),
  upload_brand_kit_font: effects(true, true, true),
  upload_brand_kit_logo: effects(true, true, true),
  upload_brand_kit_cover: effects(true, true, true),
  set_episode_cover: effects(true, true, true),
  delete_episode_cover: effects(true, true),
  // A url the account has transcribed (or is transcribing) answers that transcript again.
  create_transcript: effects(true, false, true),
  // An address is registered once: the repeat is refused (409), nothing more is made.
  create_webhook: effects(true, false),
  update_webhook: effects(true, true),
  delete_webhook: effects(true, true),
  // Each call sends a signed sample to the webhook's address.
  test_webhook: effects(false, false, true),
  // A new secret each call; the old one stops signing after its grace period.
  rotate_webhook_secret: effects(false, true),
};

/** A read: nothing changes and nothing outside the account is reached. */
export const READ_EFFECTS: Effects = effects(true, false);
