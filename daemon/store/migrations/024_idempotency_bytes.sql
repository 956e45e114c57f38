-- An idempotent replay answers the first answer's exact bytes (issue 27): clients that hash or sign
-- bodies need the same bytes, and `body` (jsonb) keeps neither key order nor spacing. Records
-- written before this column replay from `body` as before.
alter table idempotency add column if not exists body_text text;
