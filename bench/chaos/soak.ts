/**
 * Soak: a real `clipd serve` process under mixed reads and writes at 50 connections for
 * SOAK_SECONDS (default 600), on PGlite and on PostgreSQL. Each minute prints requests/s, p99,
 * errors, non-2xx answers and the server's resident memory; the verdict is zero errors, zero
 * unexpected answers and RSS growth under 10% between minute 2 and the end.
 *
 *   npm run build && node dist/bench/chaos/soak.js
 *
 * SOAK_SECONDS, SOAK_CONNECTIONS and SOAK_BACKENDS (pglite,postgres) change the run. The mix per
 * connection, in turn: GET one episode, GET /me, GET the episode list, POST a new episode with a
 * fresh Idempotency-Key (an upload episode: a row and a signed link, no work started).
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { projectRoot } from "../../config/loader.js";
import { runAdmin } from "../../daemon/account/admin.js";
import { AccountService } from "../../daemon/account/accounts.js";
import { openDb } from "../../daemon/store/db.js";
import { migrate } from "../../daemon/store/migrate.js";
import { freePort, startPgServer, withPgDatabase } from "../_pg.js";
import { rssMiB, startProcess } from "../_proc.js";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 50);
const BACKENDS = (process.env.SOAK_BACKENDS ?? "pglite,postgres").split(",");

interface Minute {
  minute: number;
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
  rss: number;
}

async function soak(backend: string, databaseUrl: string | undefined): Promise<Minute[]> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), `clipd-soak-${backend}-`));
  let server: ChildProcess | undefined;
  try {
    // The account is made before the server opens the database (PGlite has one owner at a time).
    const db = await openDb({ databaseUrl, dataDir: tmp });
    await migrate(db);
    const accounts = new AccountService(db);
    const acc = await runAdmin(accounts, "account.create", {
      email: "soak@example.com",
      credit_cents: 100_000_000,
      plan: true,
    });
    const { key } = await runAdmin(accounts, "key.create", {
      account: acc.account_id,
      mode: "live",
      scopes: "clips.read,clips.write",
    });
    await db.close();
    const cfgFile = path.join(tmp, "clipd.yaml");
    writeFileSync(
      cfgFile,
      "api:\n  rate_limit: { requests: 100000000, window_seconds: 60 }\nwatch: " +
        "{ enabled: false }\nlog: { level: warn, pretty: false }\n",
    );
    const port = await freePort();
    const env = {
      ...process.env,
      CLIPD_DATA_DIR: tmp,
      CLIPD_CONFIG: cfgFile,
      PORT: String(port),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    };
    if (!databaseUrl) delete env.DATABASE_URL;
    server = await startProcess(
      [path.join(projectRoot(), "dist", "daemon", "boot", "main.js"), "serve"],
      env,
      /is up:/,
    );
    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const created = await fetch(`${base}/api/v1/episodes`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "soak", file_name: "soak.mp3" }),
    });
    const episode = (await created.json()) as { episode_id: string };
    if (created.status !== 202)
      throw new Error(`could not create the soak episode: ${created.status} ${JSON.stringify(episode)}`);
    let n = 0;
    const body = JSON.stringify({ name: "soak create", file_name: "soak.mp3" });
    const requests: autocannon.Request[] = [
      { method: "GET", path: `/api/v1/episodes/${episode.episode_id}` },
      { method: "GET", path: "/api/v1/me" },
      { method: "GET", path: "/api/v1/episodes?limit=10" },
      {
        method: "POST",
        path: "/api/v1/episodes",
        body,
        // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
        setupRequest: (req: any) => ({ ...req, headers: { ...auth, "idempotency-key": `soak-${process.pid}-${n++}` } }),
        // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
      } as any,
    ];
    const minutes: Minute[] = [];
    for (let m = 1; m <= Math.max(1, Math.ceil(SECONDS / 60)); m++) {
      const duration = Math.min(60, SECONDS - (m - 1) * 60);
      const r = await autocannon({ url: base, headers: auth, connections: CONNECTIONS, duration, requests });
      minutes.push({
        minute: m,
        rps: r.requests.average,
        p99: r.latency.p99,
        errors: r.errors + r.timeouts,
        non2xx: r.non2xx,
        rss: rssMiB(server.pid!),
      });
      const last = minutes.at(-1)!;
      process.stderr.write(
        `${backend} minute ${m}: ${Math.round(last.rps)} req/s, p99 ${last.p99} ` +
          `ms, errors ${last.errors}, non-2xx ${last.non2xx}, RSS ${last.rss.toFixed(0)} MiB\n`,
      );
    }
    return minutes;
  } finally {
    server?.kill("SIGTERM");
    rmSync(tmp, { recursive: true, force: true });
  }
}

function table(backend: string, rows: Minute[]): string[] {
  const from = rows.find((r) => r.minute === 2) ?? rows[0]!;
  const last = rows.at(-1)!;
  const growth = (100 * (last.rss - from.rss)) / from.rss;
  const errors = rows.reduce((a, r) => a + r.errors + r.non2xx, 0);
  const p99 = Math.max(...rows.map((r) => r.p99));
  return [
    `### ${backend}: ${CONNECTIONS} connections, ${SECONDS} s, ${os.cpus().length} cores`,
    "",
    "| minute | req/s | p99 ms | errors | non-2xx | RSS MiB |",
    "|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) => `| ${r.minute} | ${Math.round(r.rps)} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${r.rss.toFixed(0)} |`,
    ),
    "",
    `errors: ${errors}; worst p99: ${p99} ms; RSS from minute ${from.minute} ` +
      `to ${last.minute}: ${from.rss.toFixed(0)} -> ${last.rss.toFixed(0)} MiB ` +
      `(${growth >= 0 ? "+" : ""}${growth.toFixed(1)}%): ${errors === 0 && growth < 10 ? "held" : "NOT held"}`,
    "",
  ];
}

async function main() {
  const out: string[] = [];
  if (BACKENDS.includes("pglite")) out.push(...table("PGlite", await soak("pglite", undefined)));
  if (BACKENDS.includes("postgres")) {
    const pg = await startPgServer();
    if (!pg) out.push("PostgreSQL: skipped (no server; set BENCH_PG_URL or install postgresql)", "");
    else {
      try {
        out.push(...table("PostgreSQL", await withPgDatabase(pg.url, (url) => soak("postgres", url))));
      } finally {
        pg.stop();
      }
    }
  }
  process.stdout.write(out.join("\n"));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
