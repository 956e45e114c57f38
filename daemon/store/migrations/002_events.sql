-- Events, written in the same transaction as the state change they describe.
create table if not exists events (
  id uuid primary key,
  type text not null,
  run_id uuid references runs (id),
  account_id uuid,
  livemode boolean not null default false,
  data jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
create index if not exists events_run_idx on events (run_id);
create index if not exists events_created_idx on events (created_at);
