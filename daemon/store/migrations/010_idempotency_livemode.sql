-- Idempotency records are kept apart for test and live keys of one account: a live request must
-- never replay a test key's sample answer (or the reverse) because both used the same
-- Idempotency-Key. Rows from before this column are live: a test repeat then simply runs again
-- (sample data, nothing charged), while a live repeat still replays its first answer.
alter table idempotency add column if not exists livemode boolean not null default true;
alter table idempotency drop constraint if exists idempotency_pkey;
alter table idempotency add primary key (account_id, livemode, key);
