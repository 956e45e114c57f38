/**
 * Database faults bench: a clipd (work + serve, in this process) on a throwaway PostgreSQL reached
 * through a TCP proxy (test/chaos/db-faults-proxy.ts), given pipeline runs and API transcripts with
 * webhooks, then restarted (every session ended by the server with 57P01, then refused for DBF_RESTART_MS), refused for
 * DBF_OUTAGE_MS (default 10 s) and hung for DBF_HANG_MS. Prints tried / held / lost and what
 * /healthz answered in each phase.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/chaos/db-faults.js
 *
 * DBF_PER_BATCH (default 20) runs of each kind start before each fault. Exits 1 when anything was lost.
 */
import { runDbFaults } from "../../test/chaos/db-faults-core.js";
import { startPgServer } from "../_pg.js";

const pgServer = await startPgServer();
if (!pgServer) {
  console.error("db-faults: no PostgreSQL (set BENCH_PG_URL, or install the postgresql package)");
  process.exit(2);
}
process.env.CLIPD_TEST_PG_URL = pgServer.url;
const opts = {
  perBatch: Number(process.env.DBF_PER_BATCH ?? 20),
  outageMs: Number(process.env.DBF_OUTAGE_MS ?? 10_000),
  restartMs: Number(process.env.DBF_RESTART_MS ?? 3000),
  hangMs: Number(process.env.DBF_HANG_MS ?? 10_000),
  healthBoundMs: 3000,
};
console.log(
  `db-faults: PostgreSQL ${pgServer.origin}; ${opts.perBatch} pipeline runs ` +
    `+ ${opts.perBatch} transcripts per batch, restart ${opts.restartMs} ms, ` +
    `outage ${opts.outageMs} ms, hang ${opts.hangMs} ms`,
);
try {
  const r = await runDbFaults(opts);
  for (const phase of ["before", "restart", "outage", "hung", "after"]) {
    const hs = r.health.filter((h) => h.phase === phase);
    if (!hs.length) continue;
    const statuses = [...new Set(hs.map((h) => h.status))].join(",");
    console.log(
      `  /healthz ${phase.padEnd(8)} ${String(hs.length).padStart(5)} probes, ` +
        `status ${statuses}, slowest ${Math.max(...hs.map((h) => h.ms))} ms, database: ` +
        `${hs[0]!.database}`,
    );
    const calls = r.api.filter((a) => a.phase === phase);
    const answers = [...new Set(calls.map((a) => `${a.status}${a.code ? ` ${a.code}` : ""}`))].join(", ");
    console.log(
      `  GET /me  ${phase.padEnd(8)} ${String(calls.length).padStart(5)} calls, ` +
        ` ${answers}, slowest ${Math.max(...calls.map((a) => a.ms))} ms`,
    );
  }
  console.log(
    `tried ${r.tried}  held ${r.held}  lost ${r.lost.length}  (unhandled errors ` +
      `${r.unhandled.length}, ${(r.ms / 1000).toFixed(1)} s)`,
  );
  for (const l of [...r.lost, ...r.unhandled].slice(0, 20)) console.log(`  ${l}`);
  process.exitCode = r.lost.length || r.unhandled.length ? 1 : 0;
} finally {
  pgServer.stop();
}
