-- Runs of a pipeline and their steps. One row per run; step outputs and errors are kept in
-- `steps` (an array with one object per executed step) so a run can be inspected in one read.
create table if not exists runs (
  id uuid primary key,
  pipeline text not null,
  input jsonb not null default '{}'::jsonb,
  state text not null default 'queued' check (state in ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  phase text not null default 'main' check (phase in ('main', 'on_failure')),
  current_step integer not null default 0,
  current_stage text,
  step_count integer not null,
  progress real not null default 0,
  progress_note text,
  plan jsonb not null,
  steps jsonb not null default '[]'::jsonb,
  output jsonb not null default '{}'::jsonb,
  error jsonb,
  origin text not null default 'api',
  origin_ref text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index if not exists runs_state_idx on runs (state, created_at);
create index if not exists runs_origin_idx on runs (origin, origin_ref);

-- Files the watch folder has taken, so a file is never processed twice.
create table if not exists watch_files (
  id uuid primary key,
  folder text not null,
  name text not null,
  size bigint not null,
  mtime_ms double precision not null,
  state text not null default 'running' check (state in ('running', 'rendering', 'done', 'failed')),
  children jsonb,
  run_id uuid references runs (id),
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists watch_files_state_idx on watch_files (state, folder, name);
