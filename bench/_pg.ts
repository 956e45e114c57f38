// PostgreSQL for the benches: a given server (BENCH_PG_URL or DATABASE_URL), or a throwaway
// cluster on loopback started from the local install (as the postgres user when run as root).
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";

export interface PgServer {
  url: string;
  origin: string;
  stop(): void;
}

function localPgBin(): string | undefined {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const newest = readdirSync(base)
    .filter((v) => existsSync(path.join(base, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a))[0];
  return newest ? path.join(base, newest, "bin") : undefined;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export async function startPgServer(): Promise<PgServer | undefined> {
  const given = process.env.BENCH_PG_URL || process.env.DATABASE_URL;
  if (given) return { url: given, origin: "given server", stop: () => {} };
  const bin = localPgBin();
  if (!bin) return undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), "clipd-bench-pg-"));
  const dataDir = path.join(dir, "data");
  const port = await freePort();
  const root = process.getuid?.() === 0;
  // initdb and the server refuse to run as root: run them as the postgres user then.
  const pgTool = (tool: string, args: string[]) => {
    const exe = path.join(bin, tool);
    const r = root
      ? spawnSync("runuser", ["-u", "postgres", "--", exe, ...args], { stdio: ["ignore", "pipe", "pipe"] })
      : spawnSync(exe, args, { stdio: ["ignore", "pipe", "pipe"] });
    if (r.status !== 0) throw new Error(`${tool} failed: ${r.stderr?.toString() || r.error?.message}`);
  };
  if (root) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(dir, uid, gid);
  }
  pgTool("initdb", ["-D", dataDir, "-U", "postgres", "-A", "trust", "--no-sync"]);
  // Server defaults apart from fsync (a throwaway cluster): commit latency is part of the measure.
  const serverOpts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  pgTool("pg_ctl", ["-D", dataDir, "-l", path.join(dir, "server.log"), "-w", "-o", serverOpts, "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    origin: `throwaway local cluster (${path.basename(path.dirname(bin))}, fsync=off)`,
    stop() {
      try {
        pgTool("pg_ctl", ["-D", dataDir, "-m", "fast", "stop"]);
      } catch {}
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function withPgDatabase<T>(serverUrl: string, fn: (url: string) => Promise<T>): Promise<T> {
  const name = `clipd_bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  try {
    return await fn(u.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end().catch(() => {});
  }
}
