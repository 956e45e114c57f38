/**
 * The configuration schema: the one place each key's type, limits, default, description and
 * environment variable are written. The `Config` type, the built-in defaults (`configDefaults`),
 * validation (loader.ts compiles this as plain JSON Schema with ajv), `clipd config describe` and
 * docs/configuration.md all come from it. Every block refuses unknown keys, so a typo such as
 * `sever:` stops start-up with a message naming it.
 */
import { Type, type Static, type TObject, type TProperties, type TSchema } from "@sinclair/typebox";
import { StringEnum } from "../daemon/engine/stage.js";
import { ENCODER_SETTINGS } from "../daemon/render/encoder-settings.js";

// A key with a default is required in `Config` (the defaults are always merged in); a key whose
// default is decided at run time by the code that reads it is optional, with an `x-default` note.
type KeyOpts = { env?: string; envEmpty?: boolean };

/** A key with its default; `env` names the variable that overrides it (`envEmpty`: even when empty). */
function Key<T extends TSchema>(schema: T, value: Static<T>, description: string, opts: KeyOpts = {}): T {
  const env = opts.env ? { "x-env": opts.env, ...(opts.envEmpty ? { "x-env-empty": true } : {}) } : {};
  return { ...schema, default: value, description, ...env };
}

/** A key without a schema default: `note` says what the reading code uses when it is left out. */
function Opt<T extends TSchema>(schema: T, note: string, description: string, opts: KeyOpts = {}) {
  return Type.Optional({ ...schema, "x-default": note, description, ...(opts.env ? { "x-env": opts.env } : {}) } as T);
}

/** A block of keys; unknown keys in it are refused. */
const Block = <P extends TProperties>(description: string, props: P) =>
  Type.Object(props, { additionalProperties: false, description });

const Duration = (o: object = {}) =>
  Type.Unsafe<string | number>({ type: ["string", "number"], pattern: "^[0-9]+(\\.[0-9]+)?(ms|s|m|h)?$", ...o });
const Str = Type.String;
const Int = Type.Integer;
const Num = Type.Number;
const Bool = Type.Boolean;

// The chat / speech endpoint keys shared by `openai` and `llm` (retries and timeouts are optional:
// `llm` falls back to `openai` key by key, then to its own defaults).
const endpointTuning = (who: string, retries: string, timeout: string) => ({
  retries: Opt(
    Int({ minimum: 0, maximum: 20 }),
    retries,
    `Retries of a failed ${who} request (transient errors only).`,
  ),
  retry_min_ms: Opt(
    Int({ minimum: 0 }),
    "1000",
    `First retry delay of a ${who} request, milliseconds; doubles each time.`,
  ),
  timeout_ms: Opt(Int({ minimum: 1000 }), timeout, `Time a ${who} request may take, milliseconds.`),
});

export const ConfigSchema = Type.Object(
  {
    data_dir: Key(
      Str({ minLength: 1 }),
      "./data",
      "Folder for the embedded database, media storage, inbox/outbox and models.",
      { env: "CLIPD_DATA_DIR" },
    ),
    database_url: Key(Str(), "", "PostgreSQL connection string. Empty: embedded PGlite database under data_dir/db.", {
      env: "DATABASE_URL",
      envEmpty: true,
    }),
    server: Block("The HTTP API.", {
      port: Key(Int({ minimum: 0, maximum: 65535 }), 8080, "TCP port the API listens on (0: any free port).", {
        env: "PORT",
      }),
      host: Key(Str(), "0.0.0.0", "Address the API listens on."),
      public_url: Key(
        Str(),
        "",
        "Public base URL used in links (download links, upload addresses). Empty: derived from the request, " +
          "except in mails: with smtp.host set, reset and verification mails are sent only when this is set.",
        { env: "CLIPD_PUBLIC_URL" },
      ),
      ops_token: Key(
        Str(),
        "",
        "Bearer token for the ops routes (/api/v1/runs, /api/v1/admin, /metrics). " +
          "Empty: the server makes one and keeps it in ops.token in the data folder (mode 0600).",
        { env: "CLIPD_OPS_TOKEN" },
      ),
      signing_secret: Key(
        Str(),
        "",
        "Secret for signed upload and download links. Empty: one is generated and kept in the database.",
      ),
      drain_seconds: Key(
        Num({ minimum: 0, maximum: 300 }),
        0,
        "On SIGTERM, the least time the listener stays open answering 503 on /readyz, " +
          "so a load balancer sees the drain before connections are refused. 0: close " +
          "once running steps end (set a few seconds behind a balancer).",
      ),
      upload_idle_seconds: Key(
        Num({ minimum: 1, maximum: 3600 }),
        60,
        "A signed upload PUT that sends no bytes for this long is cut off (408 upload_idle). " +
          "Upload PUTs have no limit on their whole length: they are bounded by this and the size cap.",
      ),
      request_body_seconds: Key(
        Num({ minimum: 1, maximum: 3600 }),
        300,
        "Every other request must have sent its whole body within this long of its start (408 request_timeout).",
      ),
      max_json_bytes: Key(
        Int({ minimum: 1024 }),
        1048576,
        "Largest JSON request body, bytes; larger ones are refused with 413 body_too_large " +
          "before they are read in full. File uploads have their own cap.",
      ),
    }),
    mcp: Block("The MCP tool server on /mcp; see docs/mcp.md.", {
      allowed_origins: Key(
        Str(),
        "",
        "Comma-separated origins (scheme://host[:port]) a browser page may call /mcp from, beyond this " +
          "server's own (the request's and server.public_url's). A request with any other Origin gets 403.",
        { env: "CLIPD_MCP_ALLOWED_ORIGINS" },
      ),
      allowed_hosts: Key(
        Str(),
        "",
        "Comma-separated Host names /mcp answers to, beyond localhost and IP addresses (DNS rebinding " +
          "protection). Checked only when server.public_url is empty, that is when no proxy stands in front.",
        { env: "CLIPD_MCP_ALLOWED_HOSTS" },
      ),
    }),
    api: Block("Public API limits.", {
      rate_limit: Block("Requests per key (or per client address without a key) in each window.", {
        requests: Key(Int({ minimum: 1 }), 600, "Requests allowed in one window."),
        window_seconds: Key(Int({ minimum: 1 }), 60, "Length of the window, seconds."),
      }),
    }),
    storage: Block("Where media live: uploads, sources, transcripts and rendered clips.", {
      kind: Key(
        StringEnum(["local", "s3"]),
        "local",
        "`local`: the folder storage/ in data_dir (share it over NFS for several " +
          "machines). `s3`: an S3-compatible object store (AWS S3, Cloudflare R2, " +
          "MinIO, Ceph RGW, Backblaze B2), set below; each machine then needs no shared disk.",
      ),
      s3: Block("The object store when storage.kind is s3 (docs/scaling.md).", {
        bucket: Key(Str(), "", "Bucket name; it must exist."),
        prefix: Key(
          Str(),
          "",
          "Prepended to every object key, to keep clipd's objects apart in a shared bucket (e.g. clipd/).",
        ),
        endpoint: Key(
          Str(),
          "",
          "The store's URL (https://<account>.r2.cloudflarestorage.com, http://10.0.0.5:9000). " +
            "Empty: AWS S3 in `region`.",
        ),
        region: Key(Str(), "", "Region. Empty: AWS_REGION, else us-east-1."),
        path_style: Key(
          Bool(),
          false,
          "Bucket in the path rather than the host name; MinIO and Ceph RGW usually need it.",
        ),
        access_key_id: Key(
          Str(),
          "",
          "Access key. Empty: the AWS SDK's own chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, " +
            "a profile, an instance role).",
        ),
        secret_access_key: Key(Str(), "", "Secret key that goes with access_key_id."),
        uploads: Key(
          StringEnum(["presigned", "proxy"]),
          "presigned",
          "How an API episode's upload address takes the file: `presigned` is a presigned " +
            "PUT straight to the store (2 hours; size and type are checked when the " +
            "upload is reported done); `proxy` sends it through clipd. The website's " +
            "resumable uploads always go through clipd.",
        ),
        downloads: Key(
          StringEnum(["redirect", "proxy"]),
          "redirect",
          "How download links serve a file: `redirect` answers clipd's signed link " +
            "with a 302 to a fresh presigned GET on the store, so the bytes bypass " +
            "clipd; `proxy` streams them through clipd (a store clients cannot reach).",
        ),
        presign_seconds: Key(
          Int({ minimum: 60, maximum: 604800 }),
          900,
          "How long a presigned GET behind a redirect stays valid.",
        ),
      }),
    }),
    log: Block("Logging (JSON lines, pino).", {
      level: Key(
        StringEnum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]),
        "info",
        "Lowest level written.",
        { env: "CLIPD_LOG_LEVEL" },
      ),
      pretty: Key(
        Type.Unsafe<"auto" | boolean>({ enum: ["auto", true, false] }),
        "auto",
        "Pretty-printed lines: auto (on a TTY), true or false.",
      ),
    }),
    queue: Block("The job queue and the workers.", {
      concurrency: Key(Int({ minimum: 1, maximum: 64 }), 2, "Concurrent steps one worker process runs."),
      heartbeat_seconds: Key(
        Int({ minimum: 10 }),
        10,
        "A step whose worker stops sending heartbeats for this long is retried elsewhere.",
      ),
      crash_limit: Key(
        Int({ minimum: 1, maximum: 100 }),
        3,
        "A step whose worker dies under it (killed, out of memory, heartbeat lost) this many times fails its run " +
          "with crashed_repeatedly. Crashes are counted apart from step errors and do not spend the step's retries.",
      ),
      notify_poll_seconds: Key(
        Num({ minimum: 0.5 }),
        0.5,
        "Fallback poll interval while LISTEN/NOTIFY is active, seconds.",
      ),
      poll_seconds: Key(Num({ minimum: 0.5 }), 0.5, "Poll interval when LISTEN/NOTIFY is not available, seconds."),
      shutdown_grace_seconds: Key(
        Num({ minimum: 0 }),
        30,
        "On SIGTERM, how long running steps may take to finish before they are abandoned (and retried later).",
      ),
      default_retry: Block("Retry policy of steps that say nothing in YAML.", {
        limit: Key(Int({ minimum: 0, maximum: 100 }), 2, "Retries after the first attempt."),
        backoff: Key(Bool(), true, "Double the delay after each retry."),
        delay: Key(Duration(), 5, "Delay before the first retry: seconds, or a duration such as 500ms, 10s, 2m, 1h."),
      }),
      default_timeout: Key(
        Duration(),
        "1h",
        "Time limit of steps that say nothing in YAML: seconds, or a duration such as 90s, 30m, 1h.",
      ),
    }),
    pipelines: Block("Pipeline files.", {
      ops_dir: Key(Str(), "", "Optional folder of extra or overriding *.yaml pipelines, edited by ops. Empty: none."),
    }),
    plugins: Key(
      Type.Array(Str({ minLength: 1 })),
      [],
      "Extra stage modules (file paths or package names). A module's stage replaces a built-in of the same name.",
    ),
    watch: Block("The watch folder role.", {
      enabled: Key(Bool(), true, "Run the watch folder role in `clipd start`."),
      stable_ms: Key(
        Int({ minimum: 0 }),
        2000,
        "How long a file must keep the same size before it is taken, milliseconds.",
      ),
      folders: Key(
        Type.Array(
          Type.Object(
            {
              path: Str({ minLength: 1, description: "Folder watched (relative: under data_dir)." }),
              pipeline: Str({ minLength: 1, description: "Pipeline run for each file." }),
            },
            { additionalProperties: false },
          ),
        ),
        [{ path: "inbox", pipeline: "episode" }],
        "Folders watched, each with the pipeline its files go through.",
      ),
      account_id: Key(
        Str({ pattern: "^$|^[0-9a-fA-F-]{36}$" }),
        "",
        "Account whose webhooks hear about watch-folder work (episode.ready, clip.ready, …). Empty: none.",
      ),
    }),
    render: Block("Clip rendering.", {
      loudness_lufs: Key(
        Type.Union([Num({ minimum: -40, maximum: -5 }), Type.Literal("off")]),
        -14,
        "Integrated loudness every render is normalised to (LUFS, EBU R128), or `off`; an export's `loudness` wins.",
      ),
      true_peak_db: Key(Num({ minimum: -9, maximum: 0 }), -1, "True-peak ceiling of every render's sound (dBTP)."),
      render_top: Key(
        Int({ minimum: 0, maximum: 10 }),
        3,
        "Clips rendered for each episode entering by CLI or watch folder.",
      ),
      fonts_dir: Opt(Str(), "system fonts", "Folder of fonts for burned-in captions (libass is pointed at it)."),
      styles_file: Opt(Str(), "config/styles.yaml", "Caption style catalogue that replaces the built-in one."),
      censor_words: Opt(
        Str(),
        "config/words/profanity.txt",
        "Word list that `censor: mask` and `bleep` hide in captions (one word a " +
          "line, `*` for a prefix; see the built-in list).",
      ),
      censor_low_confidence: Key(
        Bool(),
        false,
        "Also hide listed words the speech engine heard with confidence below 0.5 (by default they are " +
          "left as heard: more likely a misheard ordinary word).",
      ),
      hook_min_confidence: Key(
        Num({ minimum: 0, maximum: 1 }),
        0.5,
        "`hook_title: true` draws no box when a word of the clip's title was heard below this confidence " +
          "(0 draws every title); typed hook words are always drawn.",
      ),
      emoji_file: Opt(
        Str(),
        "config/emoji.yaml",
        "Keyword → symbol map for captions' `emoji` option (libass draws outline glyphs only: see docs/clips.md).",
      ),
      encoder: Key(
        StringEnum(ENCODER_SETTINGS),
        "auto",
        "H.264 encoder of rendered clips. `auto`: a hardware encoder (h264_nvenc, " +
          "h264_qsv) when ffmpeg lists it and a one-second probe encode succeeds, " +
          "else libx264. `libx264` forces software; a hardware name forces that one " +
          "(h264_vaapi only so, as the render graphs do not yet upload frames to " +
          "the GPU), and the worker refuses to start when it cannot encode. `clipd " +
          "doctor` says which is used and why.",
      ),
      concurrency: Opt(
        Int({ minimum: 1, maximum: 64 }),
        "one per 4 cores, at least 1",
        "Clip encodes one worker process runs at once; more wait their turn, each " +
          "holding its step's queue slot. On 2 cores 1 has the first clip of a request " +
          "ready in about half the time of 2, for 10% fewer clips per minute (docs/benchmarks.md, render).",
      ),
    }),
    brand: Block(
      "Brand kits (fonts, colours, logo, intro/outro cards and cover art an account " +
        "saves for its clips) and episodes' cover art; see docs/clips.md.",
      {
        kits_per_account: Key(
          Int({ minimum: 0, maximum: 1000 }),
          20,
          "Brand kits one account may keep; creating one more is refused (409 limit_reached).",
        ),
        font_max_bytes: Key(Int({ minimum: 1024 }), 4194304, "Largest uploaded font (TTF or OTF), bytes (4 MB)."),
        image_max_bytes: Key(
          Int({ minimum: 1024 }),
          5242880,
          "Largest uploaded logo or cover art (PNG, SVG, JPEG, WebP; also fetched by link), bytes (5 MB).",
        ),
        image_max_pixels: Key(
          Int({ minimum: 1024 }),
          40000000,
          "Largest logo or cover art in pixels (width × height), so a small file cannot unpack into a huge picture.",
        ),
        decode_deadline_ms: Key(
          Int({ minimum: 500, maximum: 600000 }),
          10000,
          "Most processor time an uploaded font, logo or cover art may take to open, in ms; each opens in a " +
            "child process, killed at this deadline (or at three times it in wall time), and the upload is " +
            "refused with too_complex.",
        ),
        decode_memory_mb: Key(
          Int({ minimum: 64, maximum: 16384 }),
          512,
          "Most memory the child process opening one uploaded font or image may hold, in MB; past it the " +
            "child is killed and the upload refused with too_complex.",
        ),
      },
    ),
    network: Block("Outgoing requests to user-given URLs.", {
      allow_loopback: Key(
        Bool(),
        false,
        "Tests only: allow loopback addresses for user-given URLs. Every other private range stays refused.",
      ),
      extra_ca: Key(Str(), "", "Tests only: extra CA certificate file trusted for outgoing https."),
    }),
    webhooks: Block("Webhook deliveries.", {
      time_scale: Key(
        Num({ exclusiveMinimum: 0, maximum: 1 }),
        1,
        "Multiplies every retry delay (1, 5, 30, 60 minutes, … 25 hours in all) " +
          "and the switch-off period. Tests only: a small value runs the schedule in seconds.",
      ),
      timeout_ms: Key(
        Int({ minimum: 100, maximum: 60000 }),
        10000,
        "A delivery succeeds only on a 2xx answer within this many milliseconds.",
      ),
      disable_after_hours: Key(
        Num({ exclusiveMinimum: 0 }),
        72,
        "An address whose deliveries have failed this many hours in a row is switched off (enabled: false).",
      ),
    }),
    web: Block("The website (account console) and its sign-in sessions; see docs/website.md.", {
      enabled: Key(Bool(), true, "Serve the website at / and its calls under /web."),
      signup_open: Key(
        Bool(),
        true,
        "Anyone may make an account on the website. false: only the operator does " +
          "(`clipd account create`, then `clipd account reset-password`).",
        { env: "CLIPD_SIGNUP_OPEN" },
      ),
      session_idle_hours: Key(Num({ exclusiveMinimum: 0 }), 72, "A session unused this long ends, hours."),
      session_absolute_days: Key(
        Num({ exclusiveMinimum: 0 }),
        30,
        "A session ends this long after sign-in whatever its use, days.",
      ),
      secure_cookies: Key(
        StringEnum(["auto", "always", "never"]),
        "auto",
        "Mark cookies Secure: auto (when server.public_url or the request is https), always or never.",
      ),
      signin_attempts_per_address: Key(
        Int({ minimum: 1 }),
        10,
        "Failed sign-ins allowed per client address (all accounts together) in signin_window_minutes.",
      ),
      signin_free_attempts: Key(
        Int({ minimum: 1 }),
        5,
        "Failed sign-ins to one account from one client address before that pair must wait (back-off).",
      ),
      signin_backoff_seconds: Key(
        Num({ exclusiveMinimum: 0 }),
        30,
        "The first wait of an account and address past signin_free_attempts; " +
          "it doubles with each further failure, up to signin_window_minutes.",
      ),
      signin_attempts_per_account: Key(
        Int({ minimum: 1 }),
        100,
        "Ceiling on failed sign-ins to one account from all addresses in signin_window_minutes " +
          "(guessing from many addresses). " +
          "An address that signed in to the account in the last 30 days is not held by it.",
      ),
      signin_window_minutes: Key(Num({ exclusiveMinimum: 0 }), 15, "Window of the sign-in limits, minutes."),
      mails_per_account_per_hour: Key(
        Int({ minimum: 1 }),
        3,
        "Reset and verification mails to one account in an hour; more are not sent (reset still answers 202).",
      ),
      mails_per_address_per_hour: Key(
        Int({ minimum: 1 }),
        10,
        "Reset and verification mails asked for from one client address in an hour; more are not sent.",
      ),
      signups_per_address_per_day: Key(
        Int({ minimum: 1 }),
        5,
        "Sign-ups from one client address in 24 hours; more answer 429 signup_limit.",
      ),
      free_transcripts_unverified: Key(
        Bool(),
        false,
        "Accounts made by the website's sign-up get the monthly free transcripts " +
          "before their e-mail address is verified. " +
          "false: only once verified (accounts the operator made always get them).",
      ),
      account_removal_days: Key(Int({ minimum: 0 }), 30, "Days after deletion before an account's data is removed."),
    }),
    smtp: Block(
      "Outgoing mail (address checks and password reset links). Without a host, " +
        "e-mail is off and `clipd account reset-password` resets passwords.",
      {
        host: Key(Str(), "", "SMTP server host. Empty: e-mail is off.", { env: "CLIPD_SMTP_HOST" }),
        port: Key(Int({ minimum: 1, maximum: 65535 }), 587, "SMTP server port.", { env: "CLIPD_SMTP_PORT" }),
        secure: Key(
          Bool(),
          false,
          "Connect with TLS from the start (port 465); otherwise STARTTLS is used when offered.",
        ),
        user: Key(Str(), "", "SMTP user name. Empty: no login.", { env: "CLIPD_SMTP_USER" }),
        password: Key(Str(), "", "SMTP password.", { env: "CLIPD_SMTP_PASSWORD" }),
        from: Key(Str(), "clipd <no-reply@localhost>", "Sender of clipd's mails."),
      },
    ),
    payments: Block("How credit and the plan are bought on the website; see docs/website.md.", {
      provider: Key(
        StringEnum(["manual", "stripe"]),
        "manual",
        "manual: an operator adds credit with `clipd credit add`; stripe: Checkout and its webhook.",
        { env: "CLIPD_PAYMENTS" },
      ),
      packs_cents: Key(
        Type.Array(Int({ minimum: 1000 }), { minItems: 1 }),
        [1000, 2500, 5000, 10000],
        "Credit packs offered, cents (from $10).",
      ),
      plan_cents_per_month: Key(Int({ minimum: 0 }), 1499, "Price of the plan a month, cents."),
      stripe_secret_key: Key(Str(), "", "Stripe secret API key (sk_…).", { env: "STRIPE_SECRET_KEY" }),
      stripe_webhook_secret: Key(Str(), "", "Signing secret of the Stripe webhook endpoint (whsec_…).", {
        env: "STRIPE_WEBHOOK_SECRET",
      }),
      stripe_plan_price: Key(Str(), "", "Stripe price id of the monthly plan (price_…)."),
      stripe_api_base: Key(Str(), "", "Tests only: base URL of the Stripe API. Empty: Stripe's own."),
    }),
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
      clock_offset_seconds: Key(
        Num(),
        0,
        "Seconds added to the clock by the retention job (tests move the clock here).",
      ),
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
  },
  { additionalProperties: false, title: "clipd configuration" },
);

/** The effective configuration: every key with a default is set; see ConfigSchema for each key. */
export type Config = Static<typeof ConfigSchema>;

/** Keys whose values are never printed (`clipd config print` masks them, describe shows no value). */
export const SECRET_KEYS = /(api_key|secret_key|secret_access_key|access_key_id|secret|password|token|database_url)$/i;

/** The built-in defaults, made from the schema's `default`s (a fresh copy each call). */
export function configDefaults(schema: TSchema = ConfigSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, p] of Object.entries((schema as TObject).properties ?? {})) {
    if (p.default !== undefined) out[k] = structuredClone(p.default);
    else if (p.type === "object" && p.properties) out[k] = configDefaults(p);
  }
  return out;
}
