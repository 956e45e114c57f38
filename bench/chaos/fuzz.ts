/**
 * API fuzzing bench: every operation of the registry gets CHAOS_RUNS (default 200) requests drawn
 * from its schemas and mutated (test/chaos/fuzz-core.ts), sent over HTTP to a real clipd server on
 * loopback (embedded PGlite), and a table per operation: cases, 2xx, 4xx, 5xx, hangs, 400s
 * without a field. The seed is printed; CHAOS_SEED repeats a run exactly.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/chaos/fuzz.js
 *   CHAOS_SEED=12345 CHAOS_RUNS=500 node dist/bench/chaos/fuzz.js
 *   CHAOS_BACKEND=postgres node dist/bench/chaos/fuzz.js   # a throwaway cluster, or CLIPD_TEST_PG_URL
 *
 * Exits 1 when anything was found (a 5xx, a hang, a 400 without a field, a bad envelope), after
 * listing the first findings of each kind per operation.
 */
import { fuzzTable, runFuzz, type Finding } from "../../test/chaos/fuzz-core.js";
import { knownDefectOf } from "../../test/chaos/fuzz-defects.js";
import { openChaosServer } from "../../test/chaos/server.js";
import { startPgServer } from "../_pg.js";

const seed = process.env.CHAOS_SEED ? Number(process.env.CHAOS_SEED) : Math.floor(Math.random() * 2 ** 31);
const runs = Number(process.env.CHAOS_RUNS ?? 200);
const only = process.env.CHAOS_OPS?.split(",").filter(Boolean);
console.log(
  `fuzz: seed ${seed} (CHAOS_SEED=${seed} repeats this run), ${runs} cases ` +
    `per operation, ${process.env.CHAOS_BACKEND === "postgres" ? "postgres" : "pglite"}`,
);

// CHAOS_BACKEND=postgres runs on a fresh database of the server CLIPD_TEST_PG_URL (or BENCH_PG_URL)
// names, else of a throwaway local cluster (bench/_pg.ts).
const backend = process.env.CHAOS_BACKEND === "postgres" ? "postgres" : "pglite";
const pg = backend === "postgres" && !process.env.CLIPD_TEST_PG_URL ? await startPgServer() : undefined;
if (pg) process.env.CLIPD_TEST_PG_URL = pg.url;
const server = await openChaosServer(backend, { network: { allow_loopback: true } });
try {
  const report = await runFuzz(server, { runs, seed, ...(only ? { only: (op) => only.includes(op.id) } : {}) });
  console.log(`\n${fuzzTable(report)}\n`);
  console.log(
    `${report.stats.reduce((n, s) => n + s.cases, 0)} requests in ${(report.ms / 1000).toFixed(1)} s; seed ${seed}`,
  );
  const shown = new Map<string, Finding[]>();
  for (const f of report.findings) {
    const known = knownDefectOf(f);
    const key = known ? `known defect ${known.id}` : `NEW ${f.op} ${f.kind}`;
    shown.set(key, [...(shown.get(key) ?? []), f]);
  }
  for (const [key, list] of shown) {
    console.log(`\n## ${key}: ${list.length} (operations: ${[...new Set(list.map((f) => f.op))].join(", ")})`);
    for (const f of list.slice(0, 3)) console.log(`- [${f.label}] ${f.request}\n  → ${f.status ?? ""} ${f.answer}`);
  }
  process.exitCode = report.findings.length ? 1 : 0;
} finally {
  await server.close();
  pg?.stop();
}
