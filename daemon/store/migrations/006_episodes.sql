-- Episodes, clips and jobs of the account API. Runs stay the unit of work; these rows are what an
-- account sees. Each points at its runs, and runner.onRunEnd hooks (daemon/episodes.ts) move their
-- state in the transaction that ends a run.
create table if not exists episodes (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  livemode boolean not null default true,
  name text not null,
  -- importing covers importing and transcribing (told apart by the run's current stage on read).
  status text not null check (status in ('awaiting_upload', 'importing', 'searching', 'ready', 'failed')),
  failure jsonb,
  source_url text,
  upload jsonb,
  options jsonb not null default '{}'::jsonb,
  -- What the import run produced (source, media, transcript), the input of later runs.
  state jsonb not null default '{}'::jsonb,
  run_id uuid references runs (id),
  search_run_id uuid references runs (id),
  searches jsonb not null default '[]'::jsonb,
  duration_seconds double precision,
  charged_cents bigint not null default 0,
  charged_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists episodes_account_idx on episodes (account_id, created_at desc);

create table if not exists clips (
  id uuid primary key,
  episode_id uuid not null references episodes (id),
  account_id uuid not null references accounts (id),
  number integer not null,
  ref text not null,
  data jsonb not null,
  cut_status text not null default 'not_cut' check (cut_status in ('not_cut', 'cutting', 'cut', 'failed')),
  export_status text not null default 'none' check (export_status in ('none', 'rendering', 'exported', 'failed')),
  -- The last successful cut (stage `cut` output) and render (stage `caption-burn` output).
  cut jsonb,
  render jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (episode_id, ref)
);
create index if not exists clips_account_idx on clips (account_id);

create table if not exists jobs (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  episode_id uuid not null references episodes (id),
  clip_id uuid not null references clips (id),
  kind text not null check (kind in ('cut', 'render')),
  -- queued and running are read from the run; completed and failed are set when it ends.
  status text not null default 'queued' check (status in ('queued', 'running', 'completed', 'failed')),
  run_id uuid references runs (id),
  options jsonb not null default '{}'::jsonb,
  changes jsonb not null default '[]'::jsonb,
  charged_cents bigint not null default 0,
  result jsonb,
  error jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  finished_at timestamptz
);
create index if not exists jobs_episode_idx on jobs (episode_id);
create index if not exists jobs_clip_idx on jobs (clip_id);
create index if not exists jobs_run_idx on jobs (run_id);
create index if not exists episodes_run_idx on episodes (run_id);
create index if not exists episodes_search_run_idx on episodes (search_run_id);
create index if not exists ledger_kind_idx on ledger (account_id, kind, created_at);
