-- Deleted accounts whose data has been removed (daemon/web/removal.ts). The row itself stays,
-- anonymised, because the ledger and payment records (kept for accounting) point at it.
alter table accounts add column if not exists removed_at timestamptz;
create index if not exists accounts_removal_due_idx on accounts (removal_due_at) where removal_due_at is not null and removed_at is null;
