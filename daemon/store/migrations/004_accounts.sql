-- Accounts, API keys, the ledger, idempotency records and rate-limit counters for the account API.
create table if not exists accounts (
  id uuid primary key,
  email text not null,
  plan boolean not null default false,
  credit_cents bigint not null default 0,
  billing_review boolean not null default false,
  created_at timestamptz not null default now()
);

-- Only the sha256 fingerprint of a key is stored; `prefix` is the part shown back to users.
create table if not exists api_keys (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  fingerprint text not null unique,
  prefix text not null,
  mode text not null check (mode in ('live', 'test')),
  scopes text[] not null,
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index if not exists api_keys_account_idx on api_keys (account_id);

-- Every movement of money, in cents: credit added (+) and charges (-). accounts.credit_cents is
-- kept equal to the sum, updated in the same transaction as each row.
create table if not exists ledger (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  cents bigint not null,
  kind text not null,
  ref text,
  note text,
  created_at timestamptz not null default now()
);
create index if not exists ledger_account_idx on ledger (account_id, created_at);

create table if not exists idempotency (
  account_id uuid not null,
  key text not null,
  request_hash text not null,
  state text not null check (state in ('running', 'done')),
  status integer,
  body jsonb,
  created_at timestamptz not null default now(),
  primary key (account_id, key)
);
create index if not exists idempotency_created_idx on idempotency (created_at);

-- Rate-limit windows per key (or per client address where no key is given).
create table if not exists rate_counters (
  key_id text not null,
  window_start bigint not null,
  count integer not null,
  primary key (key_id, window_start)
);
