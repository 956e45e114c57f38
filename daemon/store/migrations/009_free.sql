-- The free transcription tool (/api/v1/transcribe): its own keys, limits and jobs, apart from the
-- account API. Every limit is counted here, so it holds across any number of facade processes.

-- Free keys (svc_free_…): only the sha256 of the key is kept.
create table if not exists free_keys (
  id uuid primary key,
  fingerprint text not null unique,
  email text not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);

-- Keys issued per email address and UTC day (at most free.keys_per_email_per_day).
create table if not exists free_key_issues (
  email text not null,
  day date not null,
  issued integer not null default 0,
  primary key (email, day)
);

-- One row per accepted job. The poll token is kept as its sha256 only.
create table if not exists free_jobs (
  id uuid primary key,
  token_fp text not null,
  key_id uuid references free_keys (id),
  client_addr text not null,
  url text not null,
  callback_url text,
  callback_secret text,
  -- False when the file's server did not tell its length (one such file a day per caller).
  measured boolean not null,
  duration_seconds double precision,
  size_bytes bigint,
  -- Cents reserved from the month's budget when accepted; corrected to the real length when done.
  cost_cents numeric not null default 0,
  status text not null default 'queued' check (status in ('queued', 'completed', 'failed', 'expired')),
  -- A completed job's code (no_speech), or a failed one's error code.
  code text,
  run_id uuid references runs (id),
  result jsonb,
  error jsonb,
  audio_key text,
  audio_deleted_at timestamptz,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index if not exists free_jobs_key_idx on free_jobs (key_id, created_at);
create index if not exists free_jobs_addr_idx on free_jobs (client_addr, created_at) where key_id is null;
create index if not exists free_jobs_run_idx on free_jobs (run_id);
create index if not exists free_jobs_created_idx on free_jobs (created_at);

-- The month's spending (cents, by the cost model in free.cents_per_minute); the row lock on it
-- serialises admissions, so two processes cannot both take the last cents or the last daily slot.
create table if not exists free_budget (
  month date primary key,
  spent_cents numeric not null default 0,
  anon_spent_cents numeric not null default 0
);

-- Callback deliveries (callback_url), retried on failure.
create table if not exists free_callbacks (
  id uuid primary key,
  job_id uuid not null references free_jobs (id) on delete cascade,
  url text not null,
  payload text not null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  last_error text,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index if not exists free_callbacks_job_idx on free_callbacks (job_id);
