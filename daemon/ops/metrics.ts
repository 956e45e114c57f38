/**
 * The process's Prometheus metrics (prom-client), served at `GET /metrics` (facade/operations/
 * metrics.ts). One registry per process: every daemon, facade or worker, is scraped on its own
 * port, and Prometheus sums across them. Names and labels are documented in docs/operations.md.
 *
 * Labels stay bounded: an operation id (from the registry, not the raw path), a stage name (from
 * the installed plugins), a queue name and a small outcome set. Nothing user-supplied becomes a
 * label, so a scraper cannot be flooded with series.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: "clipd_" });

const http = new Histogram({
  name: "clipd_http_request_duration_seconds",
  help: "Time to answer an API, website or ops request, by operation id",
  labelNames: ["operation", "method", "status"] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

const steps = new Histogram({
  name: "clipd_step_duration_seconds",
  help: "Wall time of one pipeline step attempt, by stage and outcome (ok, retry, failed)",
  labelNames: ["stage", "outcome"] as const,
  buckets: [0.05, 0.25, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
  registers: [registry],
});

const renderFps = new Histogram({
  name: "clipd_render_fps",
  help: "Frames encoded per second of wall time by a render step (clip length × frame rate ÷ step time)",
  labelNames: ["stage"] as const,
  buckets: [5, 10, 20, 30, 45, 60, 90, 120, 180, 240],
  registers: [registry],
});

const transcribeRtf = new Histogram({
  name: "clipd_transcription_real_time_factor",
  help: "Transcription step time ÷ recording length (below 1 is faster than real time)",
  labelNames: ["engine"] as const,
  buckets: [0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 4],
  registers: [registry],
});

const deliveries = new Histogram({
  name: "clipd_webhook_delivery_seconds",
  help: "Time of one webhook delivery attempt, from sending to the receiver's answer, by outcome",
  labelNames: ["outcome"] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

const stepsDone = new Counter({
  name: "clipd_steps_total",
  help: "Pipeline step attempts that ended, by stage and outcome",
  labelNames: ["stage", "outcome"] as const,
  registers: [registry],
});

/** Jobs per queue and state, read from pg-boss when scraped (a source set by the worker role). */
let queueSource: (() => Promise<Array<{ name: string; queued: number; active: number; deferred: number }>>) | undefined;
new Gauge({
  name: "clipd_queue_jobs",
  help: "Jobs in each pg-boss queue by state (queued, active, deferred), read at scrape time",
  labelNames: ["queue", "state"] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const q of (await queueSource?.().catch(() => [])) ?? []) {
      this.set({ queue: q.name, state: "queued" }, q.queued);
      this.set({ queue: q.name, state: "active" }, q.active);
      this.set({ queue: q.name, state: "deferred" }, q.deferred);
    }
  },
});

export const metrics = {
  contentType: registry.contentType,
  text: () => registry.metrics(),
  setQueueSource(source: typeof queueSource) {
    queueSource = source;
  },
  httpRequest(operation: string, method: string, status: number, seconds: number) {
    http.observe({ operation, method, status: String(status) }, seconds);
  },
  /** One step attempt ended; its output tells render speed and transcription speed where it has them. */
  // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
  step(stage: string, outcome: "ok" | "retry" | "failed", seconds: number, output?: Record<string, any>) {
    steps.observe({ stage, outcome }, seconds);
    stepsDone.inc({ stage, outcome });
    if (outcome !== "ok" || !output || seconds <= 0) return;
    const made = output.render ?? output.cut;
    if (made?.key && Number(made.duration) > 0)
      renderFps.observe({ stage }, (Number(made.duration) * Number(made.fps ?? 30)) / seconds);
    const t = output.transcript;
    if (t && Number(t.duration) > 0)
      transcribeRtf.observe({ engine: String(t.engine ?? "unknown") }, seconds / Number(t.duration));
  },
  delivery(outcome: "ok" | "failed", seconds: number) {
    deliveries.observe({ outcome }, seconds);
  },
};
