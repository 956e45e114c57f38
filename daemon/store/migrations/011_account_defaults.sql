-- An account's clip defaults, saved by PATCH /clips/{id} with save_as_default: the whole resolved
-- look (style, caption_size, caption_position, hook_title, fit, background). New exports start
-- from it where the request names no value; null until the account saves one.
alter table accounts add column if not exists clip_defaults jsonb;
