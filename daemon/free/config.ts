/** The `free:` block of the config (the free transcription tool), with its defaults. */
export interface FreeConfig {
  /** Longest file with a key, seconds. Default 5400 (90 min). */
  max_seconds_key: number;
  /** Longest file without a key, seconds. Default 600 (10 min). */
  max_seconds_anon: number;
  /** Largest file, bytes. Default 629145600 (600 MB). */
  max_bytes: number;
  /** Files a day per key. Default 2. */
  files_per_day_key: number;
  /** Files a day per client address without a key. Default 1. */
  files_per_day_anon: number;
  /** Files a day per caller whose length the server did not tell. Default 1. */
  unmeasured_per_day: number;
  /** Keys issued a day per email address. Default 3. */
  keys_per_email_per_day: number;
  /** The month's budget, cents. Default 5000. */
  monthly_budget_cents: number;
  /** Share of the budget the no-key tier may spend, 0 to 1. Default 0.5. */
  anon_share: number;
  /** Cost model: cents per minute of audio. Default 0.6. */
  cents_per_minute: number;
  /** Bytes read to measure a file (Range request). Default 262144. */
  probe_bytes: number;
  /** Results of this many bytes or more (txt + srt + vtt) are given as links. Default 1048576. */
  inline_max_bytes: number;
  /** Days uploaded audio is kept. Default 7. */
  audio_retention_days: number;
  /** Days the text is kept. Default 30. */
  text_retention_days: number;
  /** Cron of the daily retention job (pg-boss schedule, UTC). Default "17 3 * * *". */
  retention_cron: string;
  /** Seconds added to the clock by the retention job (tests move the clock here). Default 0. */
  clock_offset_seconds: number;
  /** Read the client address from X-Forwarded-For (only behind a trusted proxy). Default false. */
  trust_proxy: boolean;
  /** Language passed to the transcribe stage: "auto" detects it (see docs/free-api.md), or a code. Default "auto". */
  language: string;
  /** Multiplies callback retry delays (tests shorten them). Default 1. */
  callback_time_scale: number;
}

export const FREE_DEFAULTS: FreeConfig = {
  max_seconds_key: 5400,
  max_seconds_anon: 600,
  max_bytes: 600 * 1024 * 1024,
  files_per_day_key: 2,
  files_per_day_anon: 1,
  unmeasured_per_day: 1,
  keys_per_email_per_day: 3,
  monthly_budget_cents: 5000,
  anon_share: 0.5,
  cents_per_minute: 0.6,
  probe_bytes: 256 * 1024,
  inline_max_bytes: 1024 * 1024,
  audio_retention_days: 7,
  text_retention_days: 30,
  retention_cron: "17 3 * * *",
  clock_offset_seconds: 0,
  trust_proxy: false,
  language: "auto",
  callback_time_scale: 1,
};

/** The effective free config, read afresh each time (so a changed config object is seen at once). */
// biome-ignore lint/suspicious/noExplicitAny: the loaded config; each reader takes its own section
export function freeConfig(config: Readonly<Record<string, any>>): FreeConfig {
  return { ...FREE_DEFAULTS, ...(config?.free ?? {}) };
}
