-- Upload addresses close when the upload is reported done (issue 27): a PUT after /uploaded must
-- not replace the file the import is reading. One row per closed upload, by the `ref` its signed
-- address carries (the episode's or web upload's id); rows outlive the 2-hour addresses and are
-- cleared after a day (facade/upload-closed.ts).
create table if not exists closed_uploads (
  ref text primary key,
  closed_at timestamptz not null default now()
);
create index if not exists closed_uploads_closed_idx on closed_uploads (closed_at);
