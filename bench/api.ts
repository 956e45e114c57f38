/**
 * API benchmark: authenticated, rate-limited reads (GET /api/v1/episodes/{id}) and idempotent
 * creates (POST /api/v1/episodes with Idempotency-Key) against real `clipd serve` processes, one on
 * PostgreSQL (a throwaway cluster, as bench/_pg.ts starts it) and one on the embedded PGlite, each
 * beside a bare h3 JSON route measured in the same run. autocannon drives each with 10 connections
 * from this process; the servers run in their own processes.
 *
 *   npm run build && node dist/bench/api.js
 *
 * Each run measures the bare route, then every backend's rows; the table gives the median of the
 * runs and, per backend, the read's ratio to the bare route of the same run (median of the ratios),
 * since a shared machine's speed drifts between runs.
 * Targets (issue 17): reads at 10 connections >= 0.25x the bare route on PostgreSQL, >= 0.10x on
 * PGlite, p99 < 10 ms on both.
 * Knobs: BENCH_SECONDS (10 per measure), BENCH_RUNS (3), BENCH_BACKENDS (postgres,pglite),
 * BENCH_CREATES (1; 0 measures reads only), BENCH_PROFILE (a folder: the servers run with
 * --cpu-prof and write their profiles there when stopped).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { projectRoot } from "../config/loader.js";
import { freePort, startPgServer, withPgDatabase, type PgServer } from "./_pg.js";
import { startProcess } from "./_proc.js";
import { CONNECTIONS, measure, median, type Row } from "./_api-measure.js";
import { startServe, type Served } from "./_api-serve.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const BACKENDS = (process.env.BENCH_BACKENDS ?? "postgres,pglite").split(",").map((s) => s.trim()) as Backend[];
const CREATES = process.env.BENCH_CREATES !== "0";
const PROFILE = process.env.BENCH_PROFILE ? path.resolve(process.env.BENCH_PROFILE) : undefined;
const TARGET = { postgres: 0.25, pglite: 0.1 } as const;
type Backend = keyof typeof TARGET;

const BARE_SERVER = `
import { H3 } from "h3";
import { toNodeHandler } from "h3/node";
import http from "node:http";
const app = new H3();
app.get("/hello", () => ({ hello: "world", at: 1 }));
http.createServer(toNodeHandler(app)).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("bare ready"));
`;

/** One run: the bare route, then each backend's reads (and creates), side by side. */
async function oneRun(bareUrl: string, served: Map<Backend, Served>): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  rows.set("bare", await measure({ url: bareUrl }, SECONDS));
  for (const [backend, s] of served) {
    const auth = { authorization: `Bearer ${s.key}`, "content-type": "application/json" };
    rows.set(
      `${backend} read`,
      await measure({ url: `${s.base}/api/v1/episodes/${s.episodeId}`, headers: auth }, SECONDS),
    );
    if (!CREATES) continue;
    const body = JSON.stringify({ name: "bench", file_name: "bench.mp3" });
    rows.set(
      `${backend} replay`,
      await measure(
        {
          url: `${s.base}/api/v1/episodes`,
          method: "POST",
          headers: { ...auth, "idempotency-key": "bench-replay" },
          body,
        },
        SECONDS,
      ),
    );
    let n = 0;
    const fresh = () => ({ ...auth, "idempotency-key": `bench-${backend}-${process.pid}-${n++}` });
    rows.set(
      `${backend} create`,
      await measure(
        {
          url: `${s.base}/api/v1/episodes`,
          method: "POST",
          body,
          headers: fresh(),
          // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
          setupClient: (client: any) => {
            client.on("response", () => client.setHeaders(fresh()));
            client.setHeaders(fresh());
          },
          // biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
        } as any,
        SECONDS,
      ),
    );
  }
  return rows;
}

const LABEL: Record<string, string> = {
  bare: "bare h3 JSON route (no auth, no database)",
  read: "GET /api/v1/episodes/{id} (key, scope, rate limit)",
  replay: "POST /api/v1/episodes, same Idempotency-Key (replay)",
  create: "POST /api/v1/episodes, new Idempotency-Key each (creates)",
};

function report(runs: Map<string, Row>[], backends: Backend[], pgOrigin: string | undefined): string {
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  const out = [
    `API benchmark: ${CONNECTIONS} connections, ${SECONDS} s per measure, median ` +
      `of ${runs.length} run(s), ${os.availableParallelism()} cores, Node ${process.version}, ` +
      `load average ${load}`,
    pgOrigin ? `PostgreSQL: ${pgOrigin}` : "",
    "",
    "| backend | target | req/s | p50 ms | p99 ms | × bare (same run) | errors | non-2xx |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
  ];
  const med = (name: string, f: (r: Row) => number) =>
    median(
      runs
        .map((r) => r.get(name))
        .filter((r): r is Row => !!r)
        .map(f),
    );
  const line = (backend: string, name: string, kind: string) => {
    const ratio =
      kind === "bare" ? "1.000" : median(runs.map((r) => r.get(name)!.rps / r.get("bare")!.rps))!.toFixed(3);
    out.push(
      `| ${backend} | ${LABEL[kind]} | ${Math.round(med(name, (r) => r.rps)!)} ` +
        `| ${med(name, (r) => r.p50)} | ${med(name, (r) => r.p99)} | ${ratio} | ` +
        `${med(name, (r) => r.errors)} | ${med(name, (r) => r.non2xx)} |`,
    );
  };
  line("—", "bare", "bare");
  for (const b of backends)
    for (const kind of CREATES ? ["read", "replay", "create"] : ["read"]) line(b, `${b} ${kind}`, kind);
  out.push(
    "",
    "Per run (reads): " +
      runs
        .map(
          (r, i) =>
            `run ${i + 1}: bare ${Math.round(r.get("bare")!.rps)}; ` +
            backends
              .map((b) => `${b} ${Math.round(r.get(`${b} read`)!.rps)} (p99 ${r.get(`${b} read`)!.p99} ms)`)
              .join(", "),
        )
        .join(" | "),
    "",
  );
  for (const b of backends) {
    const ratio = median(runs.map((r) => r.get(`${b} read`)!.rps / r.get("bare")!.rps))!;
    const p99 = med(`${b} read`, (r) => r.p99)!;
    const met = ratio >= TARGET[b] && p99 < 10;
    out.push(
      `Target ${b}: reads >= ${TARGET[b].toFixed(2)}x the bare route with p99 ` +
        `< 10 ms: ${met ? "met" : "NOT met"} (${ratio.toFixed(3)}x, p99 ${p99} ms).`,
    );
  }
  return out.filter((l, i) => l !== "" || i > 1).join("\n");
}

async function main() {
  const root = projectRoot();
  const tmp = mkdtempSync(path.join(os.tmpdir(), "clipd-bench-api-"));
  const stops: Array<() => void | Promise<void>> = [];
  let pgServer: PgServer | undefined;
  if (PROFILE) mkdirSync(PROFILE, { recursive: true });
  try {
    if (BACKENDS.includes("postgres")) {
      pgServer = await startPgServer();
      if (!pgServer)
        throw new Error("no PostgreSQL: set BENCH_PG_URL, or install postgresql (or BENCH_BACKENDS=pglite)");
    }
    const withDb = <T>(fn: (url?: string) => Promise<T>) =>
      pgServer ? withPgDatabase(pgServer.url, fn) : fn(undefined);
    const runs = await withDb(async (databaseUrl) => {
      const served = new Map<Backend, Served>();
      for (const b of BACKENDS) {
        const s = await startServe({
          root,
          dataDir: path.join(tmp, b),
          databaseUrl: b === "postgres" ? databaseUrl : undefined,
          profileDir: PROFILE,
        });
        stops.push(s.stop);
        served.set(b, s);
      }
      const barePort = await freePort();
      const bareFile = path.join(root, "dist", "bench", "_bare-h3.mjs");
      writeFileSync(bareFile, BARE_SERVER);
      const bare = await startProcess([bareFile], { ...process.env, PORT: String(barePort) }, /bare ready/);
      stops.push(() => void bare.kill("SIGTERM"));
      const all: Map<string, Row>[] = [];
      for (let i = 0; i < RUNS; i++) {
        console.error(`[bench api] run ${i + 1} of ${RUNS}, load ${os.loadavg()[0]!.toFixed(2)}`);
        all.push(await oneRun(`http://127.0.0.1:${barePort}/hello`, served));
      }
      // Stopped inside the database's lifetime, so a profile is written before the database goes.
      for (const stop of stops.splice(0).reverse()) await stop();
      return all;
    });
    process.stdout.write(report(runs, BACKENDS, pgServer?.origin) + "\n");
  } finally {
    for (const stop of stops.reverse()) await stop();
    pgServer?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
