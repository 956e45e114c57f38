/**
 * API benchmark: authenticated, rate-limited reads (GET /api/v1/episodes/{id}) and idempotent
 * creates (POST /api/v1/episodes with Idempotency-Key) against a real `clipd serve` process on
 * PostgreSQL, beside a bare h3 JSON route on the same machine for scale. autocannon drives each
 * with 10 connections from this process; the servers run in their own processes.
 *
 *   npm run build && node dist/bench/api.js
 *
 * Target: at least 3,000 authenticated reads/s with p99 under 10 ms at 10 connections.
 * BENCH_SECONDS sets the length of each measure (default 10).
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { projectRoot } from "../config/loader.js";
import { runAdmin } from "../daemon/account/admin.js";
import { AccountService } from "../daemon/account/accounts.js";
import { openDb } from "../daemon/store/db.js";
import { migrate } from "../daemon/store/migrate.js";
import { freePort, startPgServer, withPgDatabase } from "./_pg.js";
import { startProcess } from "./_proc.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 10;

interface Row {
  target: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function measure(target: string, opts: autocannon.Options): Promise<Row> {
  // A short warm-up, then the measure.
  await autocannon({ ...opts, connections: CONNECTIONS, duration: 2 });
  const r = await autocannon({ ...opts, connections: CONNECTIONS, duration: SECONDS });
  return { target, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

const BARE_SERVER = `
import { H3 } from "h3";
import { toNodeHandler } from "h3/node";
import http from "node:http";
const app = new H3();
app.get("/hello", () => ({ hello: "world", at: 1 }));
http.createServer(toNodeHandler(app)).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("bare ready"));
`;

async function main() {
  const root = projectRoot();
  const pgServer = await startPgServer();
  if (!pgServer) throw new Error("no PostgreSQL: set BENCH_PG_URL, or install postgresql");
  const procs: ChildProcess[] = [];
  const tmp = mkdtempSync(path.join(os.tmpdir(), "clipd-bench-api-"));
  try {
    const rows = await withPgDatabase(pgServer.url, async (databaseUrl) => {
      const db = await openDb({ databaseUrl, dataDir: tmp });
      await migrate(db);
      const accounts = new AccountService(db);
      const acc = await runAdmin(accounts, "account.create", { email: "bench@example.com", credit_cents: 10_000_000, plan: true });
      const { key } = await runAdmin(accounts, "key.create", { account: acc.account_id, mode: "live", scopes: "clips.read,clips.write" });
      await db.close();

      const cfgFile = path.join(tmp, "clipd.yaml");
      writeFileSync(cfgFile, "api:\n  rate_limit: { requests: 100000000, window_seconds: 60 }\nwatch: { enabled: false }\nlog: { level: warn, pretty: false }\n");
      const port = await freePort();
      const env = { ...process.env, DATABASE_URL: databaseUrl, CLIPD_DATA_DIR: tmp, CLIPD_CONFIG: cfgFile, PORT: String(port) };
      procs.push(await startProcess([path.join(root, "dist", "daemon", "main.js"), "serve"], env, /is up:/));
      const base = `http://127.0.0.1:${port}`;
      const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
      const created = await fetch(`${base}/api/v1/episodes`, { method: "POST", headers: auth, body: JSON.stringify({ name: "bench", file_name: "bench.mp3" }) });
      const episode = (await created.json()) as { episode_id: string };
      if (created.status !== 202) throw new Error(`could not create the bench episode: ${created.status} ${JSON.stringify(episode)}`);

      const barePort = await freePort();
      const bareFile = path.join(root, "dist", "bench", "_bare-h3.mjs");
      writeFileSync(bareFile, BARE_SERVER);
      procs.push(await startProcess([bareFile], { ...process.env, PORT: String(barePort) }, /bare ready/));

      const out: Row[] = [];
      out.push(await measure("bare h3 JSON route (no auth, no database)", { url: `http://127.0.0.1:${barePort}/hello` }));
      out.push(await measure("GET /api/v1/episodes/{id} (key, scope, rate limit)", { url: `${base}/api/v1/episodes/${episode.episode_id}`, headers: auth }));
      out.push(
        await measure("POST /api/v1/episodes, same Idempotency-Key (replay)", {
          url: `${base}/api/v1/episodes`,
          method: "POST",
          headers: { ...auth, "idempotency-key": "bench-replay" },
          body: JSON.stringify({ name: "bench replay", file_name: "bench.mp3" }),
        }),
      );
      let n = 0;
      out.push(
        await measure("POST /api/v1/episodes, new Idempotency-Key each (creates)", {
          url: `${base}/api/v1/episodes`,
          method: "POST",
          headers: auth,
          body: JSON.stringify({ name: "bench create", file_name: "bench.mp3" }),
          setupClient: (client: any) => {
            client.on("response", () => client.setHeaders({ ...auth, "idempotency-key": `bench-${process.pid}-${n++}` }));
            client.setHeaders({ ...auth, "idempotency-key": `bench-${process.pid}-${n++}` });
          },
        } as autocannon.Options),
      );
      return out;
    });
    const lines = [
      `API benchmark: ${CONNECTIONS} connections, ${SECONDS} s each, ${os.cpus().length} cores, PostgreSQL (${pgServer.origin})`,
      "",
      "| target | req/s | p50 ms | p99 ms | errors | non-2xx |",
      "|---|---:|---:|---:|---:|---:|",
      ...rows.map((r) => `| ${r.target} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} |`),
      "",
    ];
    const read = rows[1]!;
    lines.push(`Target: >= 3000 authenticated reads/s with p99 < 10 ms: ${read.rps >= 3000 && read.p99 < 10 ? "met" : "NOT met"} (${Math.round(read.rps)} req/s, p99 ${read.p99} ms).`);
    process.stdout.write(lines.join("\n") + "\n");
  } finally {
    for (const p of procs) p.kill("SIGTERM");
    pgServer.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
