import { fontsDirOf, toolHealth } from "../../daemon/kit/os-packages.js";
import { defineOperation } from "../registry.js";

export const healthz = defineOperation({
  id: "health",
  method: "GET",
  path: "/healthz",
  summary: "Reports the database, the queue, the live workers and the OS tools the stages need",
  scope: null,
  tags: ["ops"],
  responses: {
    200: { description: "Up: status ok, or degraded (no live worker, or a required OS tool missing; `tools.missing` names it, `tools.fix` installs it)" },
    503: { description: "A part is down; the body says which" },
  },
  async handler(ctx) {
    const { services } = ctx;
    const started = Date.now();
    const database = await services.db
      .query("select 1")
      .then(() => ({ ok: true, kind: services.db.kind, latency_ms: Date.now() - started }))
      .catch((err: Error) => ({ ok: false, kind: services.db.kind, error: err.message }));
    const queue = await services.queue
      .counts()
      .then((c) => ({ ok: true, ...c }))
      .catch((err: Error) => ({ ok: false, error: err.message }));
    const live = await services.workers.live().catch(() => []);
    const workers = { ok: live.length > 0, count: live.length, list: live.map((w) => ({ id: w.id, roles: w.roles, concurrency: w.concurrency, active: w.active, seen_at: w.seen_at })) };
    // A file-system look (no process spawned), cached for a while: see daemon/kit/os-packages.ts.
    const tools = toolHealth({ fontsDir: fontsDirOf(services.config) });
    const ok = database.ok && queue.ok;
    ctx.status = ok ? 200 : 503;
    return { status: ok ? (workers.ok && tools.ok ? "ok" : "degraded") : "down", version: services.version, database, queue, workers, tools };
  },
});
