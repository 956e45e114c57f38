-- Uploads the website hands out that start work once the page says the file is there: a
-- transcript of an uploaded file (kind transcript, the signed-in account's) and a free
-- transcription from the free page (kind free, with the free key or the client address that
-- asked). The id is the transcript's or the free job's to be, so the page polls one id throughout.
-- A row that never starts is removed with its file once its link has expired (daemon/free/janitor.ts).
create table if not exists web_uploads (
  id uuid primary key,
  kind text not null check (kind in ('transcript', 'free')),
  account_id uuid references accounts (id),
  free_key_id uuid references free_keys (id),
  client_addr text,
  -- Free uploads: the sha256 of the poll token handed out with the upload address.
  token_fp text,
  storage_key text not null,
  -- The file name as the page gave it (the storage key holds its sanitised form).
  name text not null,
  expires_at timestamptz not null,
  started_at timestamptz,
  created_at timestamptz not null default now()
);
create index if not exists web_uploads_expiry_idx on web_uploads (expires_at);
