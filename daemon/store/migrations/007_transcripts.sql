-- Transcripts ordered through the account API (POST /api/v1/transcripts). The run does the work;
-- this row is what the account sees. A runner.onRunEnd hook (daemon/transcripts.ts) settles it in
-- the transaction that ends the run: completed with its result and charge, or failed.
create table if not exists transcripts (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  livemode boolean not null default true,
  url text not null,
  name text not null,
  -- queued and running are read from the run; completed and failed are set when it ends.
  status text not null default 'queued' check (status in ('queued', 'running', 'completed', 'failed')),
  run_id uuid references runs (id),
  -- Counted against the month's free transcripts (decided when it was ordered).
  free boolean not null default false,
  duration_seconds double precision,
  charged_cents bigint not null default 0,
  result jsonb,
  error jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  finished_at timestamptz
);
-- One live transcript per account and url: asking again returns it. A failed one may be retried.
create unique index if not exists transcripts_account_url_idx on transcripts (account_id, url) where status <> 'failed';
create index if not exists transcripts_run_idx on transcripts (run_id);
create index if not exists transcripts_account_month_idx on transcripts (account_id, created_at);
