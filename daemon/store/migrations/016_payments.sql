-- Payments through a provider (daemon/payments/): which provider customer an account is, the
-- checkouts it started, the subscriptions behind its plan and the provider events already applied.
-- The money itself moves only in accounts.credit_cents and its ledger rows (004_accounts.sql).

-- One provider customer per account, made at its first checkout.
create table if not exists payment_customers (
  account_id uuid primary key references accounts (id),
  provider text not null,
  customer_id text not null unique,
  created_at timestamptz not null default now()
);

-- A checkout the site started: a credit pack (cents of credit it buys) or the plan. `status` goes
-- open → paid (credit added or plan on, once) → refunded when all of a pack's credit was taken back;
-- refunded_cents is how much of it has been taken back so far.
create table if not exists payment_checkouts (
  id text primary key,
  account_id uuid not null references accounts (id),
  provider text not null,
  kind text not null check (kind in ('pack', 'plan')),
  cents bigint not null,
  status text not null default 'open' check (status in ('open', 'paid', 'refunded')),
  payment_intent text,
  subscription_id text,
  refunded_cents bigint not null default 0,
  created_at timestamptz not null default now(),
  paid_at timestamptz
);
create index if not exists payment_checkouts_account_idx on payment_checkouts (account_id, created_at);
create index if not exists payment_checkouts_intent_idx on payment_checkouts (payment_intent);

-- The subscriptions behind plans, with the time of the last event applied to each, so an older
-- event delivered late does not undo a newer one.
create table if not exists payment_subscriptions (
  id text primary key,
  account_id uuid not null references accounts (id),
  status text not null,
  event_created bigint not null,
  updated_at timestamptz not null default now()
);
create index if not exists payment_subscriptions_account_idx on payment_subscriptions (account_id);

-- Provider events applied, by the provider's event id: a second delivery of one changes nothing.
create table if not exists payment_events (
  id text primary key,
  type text not null,
  received_at timestamptz not null default now()
);
