-- A clip's caption edits (issue 19, "edit before render"): the words of the episode that a user
-- retyped, kept per clip so its captions read and every later render (restyle, re-cut, a longer
-- or shorter clip) burns them. `{ range: [first, end), words: [{ text, start, end, i }] }`: the
-- transcript's words [first, end) are replaced by `words`, all on the episode's timeline. Null:
-- the clip's words are the transcript's.
alter table clips add column if not exists caption_words jsonb;
