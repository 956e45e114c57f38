/**
 * The configuration blocks for the engines: OpenAI-compatible speech and chat, transcription,
 * whisper, pocketsphinx and the free API.
 * schema.ts assembles them into the one ConfigSchema.
 */
import { StringEnum } from "../daemon/engine/stage.js";
import { Key, Opt, Block, Str, Int, Num, Bool, endpointTuning } from "./keys.js";

export const enginesBlocks = {
  openai: Block("OpenAI-compatible speech endpoint (the openai transcription engine).", {
    base_url: Key(Str(), "", "Base URL of the endpoint. Empty: api.openai.com.", { env: "OPENAI_BASE_URL" }),
    api_key: Key(Str(), "", "API key. Empty: the openai engine is unavailable.", { env: "OPENAI_API_KEY" }),
    model: Key(Str(), "whisper-1", "Speech-to-text model."),
    ...endpointTuning("speech", "4", "600000"),
  }),
  llm: Block(
    "Chat endpoint for find-clips' llm engine (any OpenAI-compatible server); " +
      "empty or missing values fall back to the openai block.",
    {
      base_url: Key(Str(), "", "Base URL of the chat endpoint. Empty: openai.base_url.", { env: "LLM_BASE_URL" }),
      api_key: Key(Str(), "", "API key. Empty: openai.api_key.", { env: "LLM_API_KEY" }),
      model: Key(Str(), "", "Chat model. Empty: openai.model unless that is a speech model, else gpt-4o-mini.", {
        env: "LLM_MODEL",
      }),
      ...endpointTuning("chat", "openai.retries, else 2", "openai.timeout_ms, else 120000"),
    },
  ),
  transcribe: Block("Speech to text.", {
    engine: Key(
      StringEnum(["auto", "pocketsphinx", "whisper", "openai"]),
      "auto",
      "Engine of steps that say `engine: auto`: auto (whisper when a model is " +
        "installed, then openai when openai.api_key is set, then pocketsphinx), " +
        "or one by name.",
    ),
    auto_model: Key(
      Str({ pattern: "^(off|[a-z0-9.-]+)$" }),
      "base.en",
      "Whisper model a worker fetches in the background when none is installed (sha256 checked, resumed " +
        "after a break), using pocketsphinx until it is there; `off`: never fetch (tests and CI).",
      { env: "CLIPD_AUTO_MODEL" },
    ),
    model_host: Key(
      Str({ pattern: "^https?://" }),
      "https://huggingface.co/ggerganov/whisper.cpp/resolve/main",
      "Base URL whisper models are fetched from (`<model_host>/ggml-<name>.bin`), by the auto fetch " +
        "and `clipd models pull`.",
      { env: "CLIPD_MODEL_HOST" },
    ),
  }),
  whisper: Block("The local whisper engine.", {
    model: Opt(Str(), "the installed model, else base.en", "Whisper model name (see `clipd models list`)."),
  }),
  pocketsphinx: Block("The pocketsphinx engine.", {
    command: Opt(Str(), "pocketsphinx_continuous", "Command that runs pocketsphinx (a name on PATH or a path)."),
  }),
  free: Block("The free transcription API (/api/v1/transcribe); see docs/free-api.md.", {
    max_seconds_key: Key(Num({ minimum: 1 }), 5400, "Longest file with a key, seconds (90 minutes)."),
    max_seconds_anon: Key(Num({ minimum: 1 }), 600, "Longest file without a key, seconds (10 minutes)."),
    max_bytes: Key(Int({ minimum: 1 }), 629145600, "Largest file, bytes (600 MB)."),
    files_per_day_key: Key(Int({ minimum: 0 }), 2, "Files a day per key."),
    files_per_day_anon: Key(Int({ minimum: 0 }), 1, "Files a day per client address without a key."),
    unmeasured_per_day: Key(Int({ minimum: 0 }), 1, "Files a day per caller whose length the server did not tell."),
    keys_per_email_per_day: Key(Int({ minimum: 0 }), 3, "Keys issued a day per email address."),
    monthly_budget_cents: Key(Num({ minimum: 0 }), 5000, "What the free tool may spend a month, cents."),
    anon_share: Key(Num({ minimum: 0, maximum: 1 }), 0.5, "Share of the budget the no-key tier may spend."),
    cents_per_minute: Key(Num({ minimum: 0 }), 0.6, "Cost model: cents per minute of audio."),
    probe_bytes: Key(
      Int({ minimum: 4096, maximum: 16777216 }),
      262144,
      "Bytes read to measure a file (Range request).",
    ),
    inline_max_bytes: Key(
      Int({ minimum: 1 }),
      1048576,
      "Results of this many bytes or more (txt + srt + vtt) are given as links.",
    ),
    audio_retention_days: Key(Int({ minimum: 1 }), 7, "Days uploaded audio is kept."),
    text_retention_days: Key(Int({ minimum: 1 }), 30, "Days the text is kept."),
    retention_cron: Key(
      Str({ minLength: 9 }),
      "17 3 * * *",
      "Cron of the daily retention job (pg-boss schedule, UTC).",
    ),
    clock_offset_seconds: Key(Num(), 0, "Seconds added to the clock by the retention job (tests move the clock here)."),
    trust_proxy: Key(Bool(), false, "Read the client address from X-Forwarded-For (only behind a trusted proxy)."),
    language: Key(
      Str({ pattern: "^(auto|[a-z]{2,3}(-[A-Za-z]{2,4})?)$" }),
      "auto",
      "Language passed to the transcribe stage: auto detects it, or a code.",
    ),
    callback_time_scale: Key(
      Num({ exclusiveMinimum: 0, maximum: 1 }),
      1,
      "Multiplies callback retry delays (tests shorten them).",
    ),
  }),
};
