/**
 * One small database adapter for both backends: a PostgreSQL server (DATABASE_URL, pg.Pool) and
 * the embedded PGlite kept in the data folder. Everything the app does goes through `query` and
 * `transaction`. PGlite has one connection, so its transactions go through `pglite.transaction()`,
 * which holds that connection exclusively; a BEGIN sent as a plain query would let pg-boss's own
 * statements slip inside it.
 */
import path from "node:path";
import type { Db } from "./db-contract.js";
import { openPglite } from "./pglite-db.js";
import { openPostgres } from "./postgres-db.js";

export * from "./db-contract.js";
export { openPglite } from "./pglite-db.js";
export { openPostgres } from "./postgres-db.js";

export async function openDb(opts: { databaseUrl?: string; dataDir: string; memory?: boolean }): Promise<Db> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl);
  return openPglite(opts.memory ? "memory://" : path.join(opts.dataDir, "db"));
}
