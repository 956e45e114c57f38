import { fontsDirOf, toolHealth } from "../../daemon/kit/os-packages.js";
import { defineOperation } from "../registry.js";

/**
 * How long each look at the database may take. A load balancer asks often and must get an answer:
 * a database that refuses, hangs or drops packets reads as down within this bound.
 */
export const HEALTH_TIMEOUT_MS = 2000;

function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${HEALTH_TIMEOUT_MS} ms`)), HEALTH_TIMEOUT_MS)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export const healthz = defineOperation({
  id: "health",
  method: "GET",
  path: "/healthz",
  summary: "Reports the database, the queue, the live workers and the OS tools the stages need",
  scope: null,
  tags: ["ops"],
  responses: {
    200: { description: "Up: status ok, or degraded (no live worker, or a required OS tool missing; `tools.missing` names it, `tools.fix` installs it)" },
    503: { description: "A part is down; the body says which (`database.error: \"unreachable\"` with the reason in `database.detail`)" },
  },
  async handler(ctx) {
    const { services } = ctx;
    const started = Date.now();
    const database = await within(services.db.query("select 1"), "database")
      .then(() => ({ ok: true, kind: services.db.kind, latency_ms: Date.now() - started }))
      // The driver's own words (ECONNREFUSED, a timeout), not the API's database_unavailable wrapper.
      .catch((err: Error) => ({ ok: false, kind: services.db.kind, error: "unreachable", detail: ((err.cause as Error | undefined) ?? err).message }));
    // With the database down the rest cannot be read either: say so without waiting on each.
    const queue = !database.ok
      ? { ok: false, error: "database unreachable" }
      : await within(services.queue.counts(), "queue")
          .then((c) => ({ ok: true, ...c }))
          .catch((err: Error) => ({ ok: false, error: err.message }));
    const live = database.ok ? await within(services.workers.live(), "workers").catch(() => []) : [];
    const workers = { ok: live.length > 0, count: live.length, list: live.map((w) => ({ id: w.id, roles: w.roles, concurrency: w.concurrency, active: w.active, seen_at: w.seen_at })) };
    // A file-system look (no process spawned), cached for a while: see daemon/kit/os-packages.ts.
    const tools = toolHealth({ fontsDir: fontsDirOf(services.config) });
    const ok = database.ok && queue.ok;
    ctx.status = ok ? 200 : 503;
    return { status: ok ? (workers.ok && tools.ok ? "ok" : "degraded") : "down", version: services.version, database, queue, workers, tools };
  },
});
