-- The website's sign-in (docs/website.md): passwords and verified addresses on accounts, browser
-- sessions, failed sign-ins for the attempt limits, and the single-use mail tokens.

-- password_hash: argon2id (PHC string); null for accounts made by the admin CLI until
-- `clipd account reset-password` gives them one. deleted_at: the account was deleted on the site
-- (unusable at once, its e-mail free again); its data goes at removal_due_at.
alter table accounts add column if not exists password_hash text;
alter table accounts add column if not exists email_verified_at timestamptz;
alter table accounts add column if not exists deleted_at timestamptz;
alter table accounts add column if not exists removal_due_at timestamptz;
-- One live account with a password per address, whatever its case. Accounts the admin CLI made
-- without a password may share an address (they predate this rule); the code refuses a sign-up
-- that clashes with any live account, and this index settles two sign-ups racing.
create unique index if not exists accounts_signin_email_idx on accounts (lower(email)) where deleted_at is null and password_hash is not null;
create index if not exists accounts_email_idx on accounts (lower(email));

-- A key's name, shown in the website's key list (the admin CLI's keys have none).
alter table api_keys add column if not exists name text;

-- Only the sha256 of the cookie's token is stored; the CSRF token is derived from the cookie's
-- token, so a new sign-in (a new session) replaces it too.
create table if not exists web_sessions (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  token_hash text not null unique,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index if not exists web_sessions_account_idx on web_sessions (account_id);

-- Failed sign-ins by subject ("addr:<client address>" or "email:<lower-case e-mail>"); counted
-- over the window in PostgreSQL, so every facade process applies the same limits.
create table if not exists signin_failures (
  subject text not null,
  failed_at timestamptz not null default now()
);
create index if not exists signin_failures_idx on signin_failures (subject, failed_at);

-- Mail links: address verification and password reset. Only the sha256 is stored; single use.
create table if not exists web_tokens (
  token_hash text primary key,
  account_id uuid not null references accounts (id),
  purpose text not null check (purpose in ('verify', 'reset')),
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index if not exists web_tokens_account_idx on web_tokens (account_id);
