-- Every committed change to what the account API's episode read shows (the episode, its clips,
-- its run's progress) sends one notice on channel clipd_changed. Each process serving the API
-- listens, and drops the reads it keeps (facade/read-cache.ts) when one arrives, so a kept read
-- is safe on a PostgreSQL shared by several processes. Statement-level triggers and an empty
-- payload: PostgreSQL folds equal notices of one transaction into one, sent at commit.
-- (Written on one line: the migration runner splits statements at a semicolon ending a line.)
create or replace function clipd_changed() returns trigger language plpgsql as $$ begin perform pg_notify('clipd_changed', ''); return null; end $$;
drop trigger if exists clipd_changed on episodes;
create trigger clipd_changed after insert or update or delete on episodes for each statement execute function clipd_changed();
drop trigger if exists clipd_changed on clips;
create trigger clipd_changed after insert or update or delete on clips for each statement execute function clipd_changed();
drop trigger if exists clipd_changed on runs;
create trigger clipd_changed after insert or update or delete on runs for each statement execute function clipd_changed();
