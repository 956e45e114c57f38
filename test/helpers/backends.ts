// The databases the integration tier runs on: embedded PGlite always, and a real PostgreSQL
// server when CLIPD_TEST_PG_URL names one (npm test starts a throwaway cluster; CI starts one too).
// Each test gets a database of its own on the server, so tests never see each other's rows.
import { randomBytes } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";

export type Backend = "pglite" | "postgres";

export function testBackends(): Backend[] {
  const url = process.env.CLIPD_TEST_PG_URL;
  if (!url && process.env.CI)
    throw new Error("CI must provide CLIPD_TEST_PG_URL: the integration tier runs on real PostgreSQL too");
  return url ? ["pglite", "postgres"] : ["pglite"];
}

/** A fresh database on the test server; returns its URL. */
export async function freshPgDatabase(): Promise<string> {
  const admin = process.env.CLIPD_TEST_PG_URL!;
  const name = `clipd_t_${randomBytes(6).toString("hex")}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`create database ${name}`);
  await c.end();
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Env for a clipd process on the given backend, with its own data folder. */
export async function backendEnv(
  backend: Backend,
  extra: Record<string, string> = {},
): Promise<{ env: NodeJS.ProcessEnv; dataDir: string; databaseUrl?: string }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "clipd-data-"));
  const databaseUrl = backend === "postgres" ? await freshPgDatabase() : undefined;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CLIPD_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl ?? "",
    CLIPD_LOG_LEVEL: process.env.CLIPD_TEST_LOG ?? "info",
    ...extra,
  };
  delete env.CLIPD_CONFIG;
  Object.assign(env, extra);
  return { env, dataDir, databaseUrl };
}
