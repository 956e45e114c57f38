/**
 * The configuration blocks for the service itself: HTTP, MCP, API limits, storage, logs, the queue,
 * pipelines and the watch folder.
 * schema.ts assembles them into the one ConfigSchema.
 */
import { Type } from "@sinclair/typebox";
import { StringEnum } from "../daemon/engine/stage.js";
import { Key, Block, Duration, Str, Int, Num, Bool } from "./keys.js";

export const serviceBlocks = {
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
      "Comma-separated Host names /mcp answers to, beyond localhost, IP addresses and server.public_url's " +
        "own host (DNS rebinding protection): a proxy that sends another name needs it listed here.",
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
};
