/**
 * What a caller does after each tool, for its description: a model reads these to chain the tools
 * (the registry's summaries say what an operation does, not what follows it). Keyed by tool name;
 * test/api/mcp-tools.test.ts fails when a tool has no entry or an entry names no tool.
 */
export const NEXT_STEP: Record<string, string> = {
  get_me: "check the scopes of this key and the credit left before starting paid work.",
  list_episodes:
    "call get_episode with an episode_id for its clips; when next_cursor is " +
    "not null, call list_episodes with cursor for the next page.",
  create_episode:
    "with source_url, call wait_for_episode (or poll get_episode every 10 s or more) until status is " +
    "ready; a model cannot stream a file, so without source_url the answer " +
    "carries upload {method: PUT, url, headers}: the user (or a script) PUTs " +
    "the file to upload.url with exactly upload.headers within 2 hours, then " +
    "you call episode_uploaded. Credit or the plan is needed for live keys.",
  get_episode:
    "once status is ready, pick clips by number or ref and call export_clips, " +
    "or search_episode for more (a ready episode without clips says what to try in next_steps); the " +
    "clips are also the resource clipd://episodes/{id}/clips. cancel_episode stops one still being made.",
  episode_uploaded: "call wait_for_episode until status is ready (a 20 minute episode takes a few minutes).",
  export_clips:
    "call wait_for_job for each job_id until status is completed, then give " +
    "the user its download_url (valid 7 days). Exporting a clip again with " +
    "the same look answers its existing job (existing: true), nothing charged.",
  search_episode: "call wait_for_episode until status is ready again; the new clips join its list.",
  get_job: "when status is completed, download_url is the MP4 (valid 7 days); restyle_clip changes its look.",
  restyle_clip: "call wait_for_job with the job_id until completed for the new download_url.",
  clip_captions:
    "restyle_clip to change how the captions look; edit_clip_captions to change " +
    "what they say (by caption id) or move the clip by whole sentences.",
  edit_clip_captions:
    "call wait_for_job with the job_id until completed; clip_captions shows the edited words at once.",
  cancel_episode:
    "nothing more runs for the episode; an episode cancelled before its clip " +
    "search started is not charged. delete_episode removes it.",
  delete_episode: "list_episodes to see what is left; the episode's download links no longer work.",
  wait_for_job:
    "if done is false, call wait_for_job again; once completed give the user download_url; if failed, read error.",
  wait_for_episode:
    "if done is false, call wait_for_episode again; once ready pick clips for " +
    "export_clips; awaiting_upload waits for the user's PUT.",
  list_styles: "pass a style id or name as style to export_clips or restyle_clip; also the resource clipd://styles.",
  list_brand_kits: "pass a brand_kit_id as brand_kit to export_clips or restyle_clip; create_brand_kit makes one.",
  create_brand_kit:
    "upload_brand_kit_font, upload_brand_kit_logo and upload_brand_kit_cover " +
    "(each with an https url) add its files; then name it as brand_kit on export_clips.",
  get_brand_kit: "update_brand_kit changes it; clips already made keep the kit as it was.",
  update_brand_kit: "restyle_clip with brand_kit to render a clip with the changed kit.",
  delete_brand_kit: "list_brand_kits to see what is left.",
  upload_brand_kit_font: "check font.family in the answer: that is the name captions ask for.",
  upload_brand_kit_logo: "update_brand_kit with logo {corner, size, opacity} to place it.",
  upload_brand_kit_cover: "export_clips of an audio episode with this brand_kit to use it behind the clip.",
  set_episode_cover: "export_clips: the episode's audio clips are made on this cover from now on.",
  delete_episode_cover:
    "export_clips: audio clips fall back to the brand kit's cover, the file's own art or a gradient.",
  create_transcript:
    "poll get_transcript until status is completed; the text is then also the " +
    "resource clipd://transcripts/{id}.txt (.srt, .vtt).",
  get_transcript:
    "when completed, read text, or the resource clipd://transcripts/{id}.vtt; " +
    "downloads hold signed TXT, SRT and VTT links.",
  list_webhooks:
    "create_webhook adds an address (at most 5); update_webhook, delete_webhook and test_webhook manage one.",
  create_webhook:
    "store the secret now (it is never shown again) to verify deliveries, then test_webhook to send a signed sample.",
  update_webhook: "test_webhook to check the address answers.",
  delete_webhook: "list_webhooks to see what is left.",
  test_webhook: "if delivered is false, check the address answers 2xx within 10 seconds.",
  rotate_webhook_secret:
    "switch the receiver to the new secret within 24 hours; the old one keeps " +
    "signing until previous_secret_expires_at.",
};
