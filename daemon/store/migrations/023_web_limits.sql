-- Issue 27, the website's abuse limits (docs/website.md, "Limits on mail, sign-up and sign-in").
-- One row per counted event by subject ("reset:acct:<email>", "reset:addr:<address>",
-- "verify:acct:<id>", "verify:addr:<address>", "signup:addr:<address>", "signin-ok:<email>|<address>"),
-- counted over each limit's window in the database, so every facade process applies the same
-- limits. Rows older than a month are swept; no limit looks further back.
create table if not exists web_limit_hits (
  subject text not null,
  hit_at timestamptz not null default now()
);
create index if not exists web_limit_hits_idx on web_limit_hits (subject, hit_at);
-- Accounts made by the website's own sign-up (not the operator's `clipd account create`): these
-- get the monthly free transcripts only once their address is verified (web.free_transcripts_unverified).
alter table accounts add column if not exists web_signup boolean not null default false;
