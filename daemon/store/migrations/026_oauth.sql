-- Issue 30: OAuth 2.1 for chat apps' remote MCP connectors (daemon/oauth/, docs/mcp.md).
-- Clients register themselves (RFC 7591); a signed-in user's Allow on the consent page makes a
-- one-time code; the code becomes a grant with its tokens. Codes and tokens are stored only as the
-- sha256 of their text (looked up by it, then compared in constant time).

-- A registered client: public (no secret), its name as it gave it and its exact redirect URIs.
create table if not exists oauth_clients (
  id text primary key,
  name text not null,
  redirect_uris text[] not null,
  created_at timestamptz not null default now()
);

-- One authorization code: bound to its client, account, redirect URI, PKCE challenge (S256),
-- scopes and resource. used_at marks it spent; grant_id names what it became, so a second use
-- revokes that grant (RFC 6749 section 4.1.2).
create table if not exists oauth_codes (
  code_hash text primary key,
  client_id text not null references oauth_clients (id) on delete cascade,
  account_id uuid not null references accounts (id) on delete cascade,
  redirect_uri text not null,
  code_challenge text not null,
  scopes text[] not null,
  resource text not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  grant_id uuid
);
create index if not exists oauth_codes_expires_idx on oauth_codes (expires_at);

-- A consent in use: what one client may do for one account, for one resource (this server's /mcp).
-- Revoking it ends every token made under it.
create table if not exists oauth_grants (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  client_id text not null references oauth_clients (id) on delete cascade,
  scopes text[] not null,
  resource text not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  -- user, refresh_reuse, code_reuse, client
  revoked_reason text
);
create index if not exists oauth_grants_account_idx on oauth_grants (account_id);

-- Access tokens (1 h) and refresh tokens (rotated on every use: used_at set once it was spent).
create table if not exists oauth_tokens (
  token_hash text primary key,
  grant_id uuid not null references oauth_grants (id) on delete cascade,
  kind text not null check (kind in ('access', 'refresh')),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz,
  revoked_at timestamptz
);
create index if not exists oauth_tokens_grant_idx on oauth_tokens (grant_id);
