-- The current step's estimate of when it will be done (issue 17): written with its progress and
-- kept as a point in time, so a reader works out the seconds left without the row being rewritten
-- every second. Null when the step gives no estimate.
alter table runs add column if not exists eta_at timestamptz;
