-- One courier (daemon/delivery/courier.ts) delivers webhooks and free-API callbacks alike, so their
-- deliveries and attempts move into one pair of tables. Every row moves with its id kept: the id is
-- the webhook-id receivers deduplicate on, and pg-boss jobs already queued (on the same queue names)
-- carry it, so a retry pending at the upgrade still finds its delivery.

create table if not exists deliveries (
  -- Sent as webhook-id, the same on every attempt.
  id uuid primary key,
  -- Which plan delivers it: 'webhook' (account webhooks) or 'free_callback' (free API callbacks).
  kind text not null check (kind in ('webhook', 'free_callback')),
  -- A webhook delivery's address and event (event_id null for test deliveries); the address and
  -- its secrets are read again at every attempt, so a rotation or a switch-off takes effect.
  webhook_id uuid references webhooks (id) on delete cascade,
  event_id uuid references events (id),
  event_type text,
  -- A free callback's job (its secret signs) and the fixed address given with the job.
  job_id uuid references free_jobs (id) on delete cascade,
  url text,
  -- The exact body sent on every attempt.
  payload text not null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  -- An attempt in flight: which one, and until when its claim holds (a dead worker's claim lapses).
  claimed_attempt integer,
  claimed_until timestamptz,
  next_attempt_at timestamptz,
  last_error text,
  created_at timestamptz not null default now(),
  finished_at timestamptz,
  check ((kind = 'webhook') = (webhook_id is not null)),
  check ((kind = 'free_callback') = (job_id is not null and url is not null))
);
create unique index if not exists deliveries_event_idx on deliveries (webhook_id, event_id) where event_id is not null;
create index if not exists deliveries_webhook_idx on deliveries (webhook_id, created_at desc) where webhook_id is not null;
create index if not exists deliveries_job_idx on deliveries (job_id) where job_id is not null;

create table if not exists delivery_attempts (
  delivery_id uuid not null references deliveries (id) on delete cascade,
  attempt integer not null,
  at timestamptz not null default now(),
  status_code integer,
  latency_ms integer not null,
  -- The start of the response body (as much as the kind keeps), or null.
  response text,
  -- Why the attempt failed (refused address, timeout, non-2xx); null on success.
  error text,
  primary key (delivery_id, attempt)
);

insert into deliveries (id, kind, webhook_id, event_id, event_type, payload, status, attempts, claimed_attempt, claimed_until, next_attempt_at, last_error, created_at, finished_at)
  select id, 'webhook', webhook_id, event_id, event_type, payload, status, attempts, claimed_attempt, claimed_until, next_attempt_at, last_error, created_at, finished_at
    from webhook_deliveries;

-- Free callbacks kept no attempt rows before this; their count and last error move as they are.
insert into deliveries (id, kind, job_id, url, payload, status, attempts, last_error, created_at, finished_at)
  select id, 'free_callback', job_id, url, payload, status, attempts, last_error, created_at, finished_at
    from free_callbacks;

insert into delivery_attempts (delivery_id, attempt, at, status_code, latency_ms, response, error)
  select delivery_id, attempt, at, status_code, latency_ms, response, error
    from webhook_attempts;

-- No conflict clause: a copy either moves every row or fails, and then the whole migration rolls
-- back (one transaction, migrate.ts) and the old tables stay as they were. They are dropped only
-- after every row has moved.
drop table if exists webhook_attempts;
drop table if exists webhook_deliveries;
drop table if exists free_callbacks;
