-- Live worker processes. Each `clipd work` (or `start`) refreshes its row; /healthz shows those seen recently.
create table if not exists workers (
  id text primary key,
  host text not null,
  pid integer not null,
  roles text not null,
  concurrency integer not null,
  active integer not null default 0,
  started_at timestamptz not null default now(),
  seen_at timestamptz not null default now()
);
