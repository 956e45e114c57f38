/**
 * Kill -9 at random moments: CHAOS_N pieces of work (default 30) through the account API (POST
 * /episodes with source_url, webhooks to a local receiver, an export of clip 1 for every third) and
 * through the watch folder (jfk.wav with a sidecar asking for a small render), on PGlite and on
 * PostgreSQL. Work goes in by batches of CHAOS_BATCH (default 3); during each batch but the first (which measures a
 * batch) a real `clipd start` from dist/ is killed
 * with SIGKILL once, restarted, and the batch must finish. About half the kills are forced inside a
 * transaction window: a crash point (CLIPD_FAULTS) or, on PostgreSQL, a row lock held from a
 * second connection while the daemon waits on it. Then the checks of test/chaos/kill-checks.ts:
 * one run per piece of work, one event of each type, one delivery and one webhook-id per event,
 * one charge per episode, one outbox folder per watch file, no stray files.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/chaos/kill.js
 *   CHAOS_SEED=12345 CHAOS_N=10 CHAOS_BACKENDS=postgres CHAOS_PATHS=api node dist/bench/chaos/kill.js
 *
 * PostgreSQL: BENCH_PG_URL (or DATABASE_URL), else a throwaway cluster from the local install.
 * CHAOS_EXPORT_EVERY (default 3: episodes 0, 3, 6, …; 0: none) says which episodes export clip 1;
 * CHAOS_PARALLEL (default 4) worlds run at once; CHAOS_STANDIN=1 (API path only) runs the test's
 * cheap stand-in pipelines (test/chaos/kill-pipelines/), for many kills in little time. Exits 1 when anything was lost,
 * duplicated or
 * left behind.
 */
import path from "node:path";
import { projectRoot } from "../../config/loader.js";
import { startPgServer } from "../_pg.js";
import { killTable, runKills, type KillReport, type Plan } from "../../test/chaos/kill-core.js";
import type { Backend } from "../../test/helpers/backends.js";
import type { WorkPath } from "../../test/chaos/kill-world.js";

const seed = process.env.CHAOS_SEED ? Number(process.env.CHAOS_SEED) : Math.floor(Math.random() * 2 ** 31);
const n = Number(process.env.CHAOS_N ?? 30);
const batch = Number(process.env.CHAOS_BATCH ?? 3);
const exportEvery = process.env.CHAOS_STANDIN === "1" ? 0 : Number(process.env.CHAOS_EXPORT_EVERY ?? 3);
const backends = (process.env.CHAOS_BACKENDS ?? "pglite,postgres").split(",").filter(Boolean) as Backend[];
const paths = (process.env.CHAOS_PATHS ?? "api,watch").split(",").filter(Boolean) as WorkPath[];
const parallel = Number(process.env.CHAOS_PARALLEL ?? 4);
// The test's cheap stand-ins for api-episode and api-search: many more kills an hour, all about the
// queue and its transactions (no clips are found, so nothing is exported).
const standIn = process.env.CHAOS_STANDIN === "1";
const pipelinesDir = standIn ? path.join(projectRoot(), "test", "chaos", "kill-pipelines") : undefined;
// CHAOS_REPEAT=1 (with CHAOS_STANDIN=1, API path): every batch's kill is one step killed 1 to 5
// times in a row at random moments of it, but every fourth, which kills the daemon mid-way through
// a whole-file upload PUT (issue 27). The counts, moments and delays come from the seed.
const repeatKills = process.env.CHAOS_REPEAT === "1";
const repeatPlan = (i: number, r: () => number): Plan => {
  if (i % 4 === 0) return { kind: "put", delayMs: 200 + Math.round(r() * 900) };
  const times = 1 + Math.floor(r() * 5);
  return { kind: "repeat", times, delaysMs: Array.from({ length: times }, () => Math.round(r() * 600)) };
};
const repeat =
  `CHAOS_SEED=${seed} CHAOS_N=${n} CHAOS_BATCH=${batch} ` +
  `CHAOS_EXPORT_EVERY=${exportEvery}${standIn ? " CHAOS_STANDIN=1" : ""}${repeatKills ? " CHAOS_REPEAT=1" : ""} ` +
  `CHAOS_BACKENDS=${backends.join(",")} CHAOS_PATHS=${paths.join(",")} node ` +
  `dist/bench/chaos/kill.js`;
console.log(`kill -9: seed ${seed}, ${n} per backend and path, batches of ${batch}\n  repeat: ${repeat}`);

const pgServer = backends.includes("postgres") ? await startPgServer() : undefined;
if (backends.includes("postgres")) {
  if (!pgServer) throw new Error("no PostgreSQL: set BENCH_PG_URL or install the postgresql package");
  process.env.CLIPD_TEST_PG_URL = pgServer.url;
}
// The worlds run side by side: a daemon mostly waits (heartbeats, retries, the receiver), so four
// at once fit on two cores and the whole run takes a quarter of the time.
const worlds = backends.flatMap((backend) => paths.map((workPath) => ({ backend, path: workPath })));
const reports: KillReport[] = [];
try {
  for (let i = 0; i < worlds.length; i += parallel) {
    const done = await Promise.all(
      worlds.slice(i, i + parallel).map(async ({ backend, path: workPath }) => {
        const r = await runKills({
          backend,
          path: workPath,
          n,
          batch,
          seed,
          exportEvery: workPath === "api" ? exportEvery : 0,
          pipelinesDir,
          ...(repeatKills ? { plan: repeatPlan, windowShare: 0 } : {}),
          log: (l) => console.log(`  ${l}`),
        });
        console.log(`\n${killTable([r])}\n`);
        for (const p of r.problems)
          console.log(`  ${backend}/${workPath} ${p.kind}: ${p.subject || "(data folder)"}: ${p.what}`);
        return r;
      }),
    );
    reports.push(...done);
  }
} finally {
  pgServer?.stop();
}
console.log(`\n## kill -9, seed ${seed}\n\n${killTable(reports)}\n\nrepeat: ${repeat}`);
process.exitCode = reports.some((r) => r.problems.length) ? 1 : 0;
