-- Service-wide settings shared by every process on the database, e.g. the URL-signing secret.
create table if not exists settings (
  name text primary key,
  value text not null,
  created_at timestamptz not null default now()
);
