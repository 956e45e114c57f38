-- Webhooks: an account's addresses, one delivery per (address, event), and every attempt made.
-- Deliveries and their retries are pg-boss jobs (daemon/webhooks.ts); these rows are the record
-- the API shows and the state each attempt checks, so a retry survives a restart.

-- Files the delivery turns into signed links (download_url, transcript files) when it fans out.
alter table events add column if not exists links jsonb;
create index if not exists events_account_idx on events (account_id, created_at);

create table if not exists webhooks (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  url text not null,
  events jsonb not null,
  -- [{ secret, expires_at }]: the newest first; an older one keeps signing until it expires (rotation).
  secrets jsonb not null,
  enabled boolean not null default true,
  disabled_reason text,
  -- Start of the current run of failed attempts; null after a success.
  failing_since timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists webhooks_account_idx on webhooks (account_id, created_at);

create table if not exists webhook_deliveries (
  -- Sent as webhook-id, the same on every attempt.
  id uuid primary key,
  webhook_id uuid not null references webhooks (id) on delete cascade,
  -- Null for test deliveries (POST /webhooks/{id}/test).
  event_id uuid references events (id),
  event_type text not null,
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
  finished_at timestamptz
);
create unique index if not exists webhook_deliveries_event_idx on webhook_deliveries (webhook_id, event_id) where event_id is not null;
create index if not exists webhook_deliveries_webhook_idx on webhook_deliveries (webhook_id, created_at desc);

create table if not exists webhook_attempts (
  delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
  attempt integer not null,
  at timestamptz not null default now(),
  status_code integer,
  latency_ms integer not null,
  -- The first 1 KB of the response body, or why there was no response.
  response text,
  error text,
  primary key (delivery_id, attempt)
);
