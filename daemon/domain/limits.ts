/**
 * The limits an episode is held to, in one place: the published description promises episodes up
 * to 3 hours and 4.5 GB, and the fetch, probe and upload checks, the API and the docs all read
 * these numbers from here.
 */

/** Longest episode accepted, in seconds (3 h). */
export const EPISODE_MAX_SECONDS = 3 * 3600;

/** Largest episode file accepted, in bytes (4.5 GB = 4.5 × 2^30). */
export const EPISODE_MAX_BYTES = 4_831_838_208;
