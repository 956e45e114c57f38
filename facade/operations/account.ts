/**
 * The account API's episode, clip and job operations, in the order the OpenAPI document lists
 * them (episodes.ts and clips.ts hold them).
 */
import type { Operation } from "../registry.js";
import { clipCaptions, exportClips, getJob, listStyles, restyleClip } from "./clips.js";
import { editClipCaptions } from "./clip-edits.js";
import { createEpisode, episodeUploaded, getEpisode, listEpisodes, searchEpisode } from "./episodes.js";
import { cancelEpisode, deleteEpisode } from "./episode-lifecycle.js";
import { WAIT_OPERATIONS } from "./waits.js";

export const ACCOUNT_OPERATIONS: Operation[] = [
  listEpisodes,
  createEpisode,
  getEpisode,
  episodeUploaded,
  exportClips,
  searchEpisode,
  cancelEpisode,
  deleteEpisode,
  getJob,
  restyleClip,
  clipCaptions,
  editClipCaptions,
  listStyles,
  // Tools of the MCP tool server only (surfaces ["chat"]): never routed over HTTP.
  ...WAIT_OPERATIONS,
];
