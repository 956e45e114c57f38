-- The outbox folder a watch file's results go to, chosen once and recorded before anything is
-- written, so a restart after a crash finishes that folder instead of starting a second one.
alter table watch_files add column if not exists outbox text;
