-- Each attempt to answer an Idempotency-Key owns its record by a token. A retry that takes over a
-- record left "running" gets a new token, and an answer is stored only by the attempt that holds
-- the token: if the first attempt was merely slow, its work rolls back instead of running twice.
alter table idempotency add column if not exists attempt uuid;
