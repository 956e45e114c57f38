import { metrics } from "../../daemon/ops/metrics.js";
import { defineOperation } from "../registry.js";

/**
 * Prometheus metrics of this process (daemon/ops/metrics.ts; names in docs/operations.md). Behind
 * the ops token like the other ops routes: queue depths and request rates say how busy the service
 * is, which is nobody else's business. A Prometheus job sends it with `authorization.credentials`.
 */
export const getMetrics = defineOperation({
  id: "metrics",
  method: "GET",
  path: "/metrics",
  summary:
    "Prometheus metrics of this process: HTTP latency per operation, step durations, " +
    "render fps, transcription speed, webhook latency, queue depths",
  scope: null,
  auth: "ops",
  internal: true,
  tags: ["ops"],
  responses: {
    200: { description: "Prometheus text exposition format" },
    401: { description: "No ops token, or the wrong one" },
  },
  async handler() {
    return new Response(await metrics.text(), {
      status: 200,
      headers: { "content-type": metrics.contentType, "cache-control": "no-store" },
    });
  },
});
