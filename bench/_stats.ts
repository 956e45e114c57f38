// Statistics for the benches: nearest-rank summaries, and the step-to-step gaps of finished runs.
import type { Run } from "../daemon/engine/runner.js";

export interface Summary {
  n: number;
  median: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function summarise(values: number[]): Summary {
  const s = [...values].sort((a, b) => a - b);
  return {
    n: s.length,
    median: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    max: s.length ? s[s.length - 1]! : NaN,
    mean: s.length ? s.reduce((a, b) => a + b, 0) / s.length : NaN,
  };
}

/** Step-to-step gaps of finished runs: from the stages' own clocks, and from the runner's records. */
export function transitions(runs: Run[]): { stage: number[]; recorded: number[] } {
  const stage: number[] = [];
  const recorded: number[] = [];
  for (const run of runs) {
    const steps = run.steps.filter((s) => s.phase === "main").sort((a, b) => a.index - b.index);
    for (let i = 1; i < steps.length; i++) {
      const prev = steps[i - 1]!;
      const next = steps[i]!;
      if (prev.index !== next.index - 1) continue;
      const a = prev.output as { t_end?: number } | undefined;
      const b = next.output as { t_start?: number } | undefined;
      if (typeof a?.t_end === "number" && typeof b?.t_start === "number") stage.push(b.t_start - a.t_end);
      if (prev.finished_at && next.started_at)
        recorded.push(Date.parse(next.started_at) - Date.parse(prev.finished_at));
    }
  }
  return { stage, recorded };
}
