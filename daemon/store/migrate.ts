/**
 * Numbered SQL migrations (NNN_name.sql), applied in order, each in its own transaction and
 * recorded in clipd_migrations. On PostgreSQL an advisory lock keeps two daemons from migrating at
 * the same time.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { projectRoot } from "../../config/loader.js";
import type { Db } from "./db.js";

const LOCK_ID = 7_241_001;

export function migrationsDir(): string {
  return path.join(projectRoot(), "daemon", "store", "migrations");
}

export async function migrate(db: Db): Promise<string[]> {
  const dir = migrationsDir();
  const files = (await readdir(dir)).filter((f) => /^\d{3}_.+\.sql$/.test(f)).sort();
  const applied: string[] = [];
  // Each step takes a transaction-scoped lock, so it is released with the transaction whatever
  // pooled connection it ran on.
  const lock = (tx: { query: Db["query"] }) =>
    db.kind === "postgres" ? tx.query("select pg_advisory_xact_lock($1)", [LOCK_ID]) : Promise.resolve();
  await db.transaction(async (tx) => {
    await lock(tx);
    await tx.query(
      `create table if not exists clipd_migrations (id text primary key, applied_at ` +
        `timestamptz not null default now())`,
    );
  });
  for (const file of files) {
    const sql = await readFile(path.join(dir, file), "utf8");
    await db.transaction(async (tx) => {
      await lock(tx);
      const seen = await tx.query("select 1 from clipd_migrations where id = $1", [file]);
      if (seen.rows.length) return;
      for (const stmt of splitSql(sql)) await tx.query(stmt);
      await tx.query("insert into clipd_migrations (id) values ($1)", [file]);
      applied.push(file);
    });
  }
  return applied;
}

/** Splits a migration file on semicolons at line ends (our migrations keep to that style). */
function splitSql(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
    .filter(Boolean);
}
