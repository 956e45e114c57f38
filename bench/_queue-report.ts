// The queue bench's results and the Markdown report it prints (bench/queue.ts measures them).
import os from "node:os";
import type { Summary } from "./_stats.js";

export type Backend = "pglite" | "postgres";

/** What the report names: the pipelines and how many runs each measure took. */
export interface ReportSettings {
  chain: string;
  three: string;
  latencyRuns: number;
  throughputRuns: number;
}

export interface LatencyResult {
  runs: number;
  stage: Summary;
  recorded: Summary;
  partial: boolean;
}

export interface ThroughputResult {
  runs: number;
  finished: number;
  failed: number;
  seconds: number;
  runsPerSecond: number;
  stepsPerSecond: number;
  enqueueSeconds: number;
  stage: Summary;
  partial: boolean;
}

export interface ScenarioResult {
  backend: Backend;
  concurrency: number;
  notify: boolean;
  warnings: string[];
  latency: LatencyResult;
  throughput: ThroughputResult;
  seconds: number;
}

export function describeLogLine(line: string): string {
  try {
    const o = JSON.parse(line);
    return `${o.msg}: ${o.warning ?? o.err?.message ?? ""}`;
  } catch {
    return line;
  }
}

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : "n/a");

export function report(results: ScenarioResult[], pgOrigin: string | undefined, o: ReportSettings): string {
  const cores = os.cpus().length;
  const cpu = os.cpus()[0]?.model?.trim() ?? "unknown CPU";
  const out: string[] = [];
  out.push(
    `clipd queue benchmark, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cores} cores (${cpu})`,
  );
  if (pgOrigin) out.push(`PostgreSQL: ${pgOrigin}`);
  out.push("");
  out.push(
    `Step dispatch latency, ms: a step's end to the next step's start (${o.chain}, ` +
      `runs one at a time, ${o.latencyRuns} runs × 5 transitions)`,
  );
  out.push("");
  out.push(
    "| cores | backend | concurrency | transitions | median | p90 | p99 | max | recorded median | recorded p90 |",
  );
  out.push("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of results) {
    const l = r.latency;
    out.push(
      `| ${cores} | ${r.backend} | ${r.concurrency} | ${l.stage.n}${l.partial ? " (partial)" : ""} ` +
        `| ${ms(l.stage.median)} | ${ms(l.stage.p90)} | ${ms(l.stage.p99)} | ${ms(l.stage.max)} ` +
        `| ${ms(l.recorded.median)} | ${ms(l.recorded.p90)} |`,
    );
  }
  out.push("");
  out.push(`Throughput: ${o.throughputRuns} runs of ${o.three} (3 no-op steps) queued at once`);
  out.push("");
  out.push(
    "| cores | backend | concurrency | runs done | seconds | runs/s | steps/s " +
      "| enqueue s | gap median ms | gap p90 ms |",
  );
  out.push("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of results) {
    const t = r.throughput;
    out.push(
      `| ${cores} | ${r.backend} | ${r.concurrency} ` +
        `| ${t.finished}/${t.runs}${t.failed ? ` (${t.failed} failed)` : ""} ` +
        `| ${t.seconds.toFixed(2)} | ${t.runsPerSecond.toFixed(1)} | ${t.stepsPerSecond.toFixed(1)} ` +
        `| ${t.enqueueSeconds.toFixed(2)} | ${ms(t.stage.median)} | ${ms(t.stage.p90)} |`,
    );
  }
  out.push("");
  const pgRows = results.filter((r) => r.backend === "postgres");
  if (pgRows.length) {
    const worst = Math.max(...pgRows.map((r) => r.latency.stage.median));
    out.push(
      `Target: median step-to-step latency under 250 ms on PostgreSQL: ${worst < 250 ? "met" : "NOT met"} ` +
        `(worst median ${ms(worst)} ms).`,
    );
  }
  for (const r of results) {
    out.push(
      `${r.backend}, concurrency ${r.concurrency}: queue notify=${r.notify}, ` +
        `scenario ${r.seconds.toFixed(1)} s${r.warnings.length ? `, warnings: ${r.warnings.join("; ")}` : ""}`,
    );
  }
  return out.join("\n");
}
