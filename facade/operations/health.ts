import { fontsDirOf, toolHealth } from "../../daemon/ops/os-packages.js";
import { modelStatus } from "../../daemon/ops/model-status.js";
import { defineOperation } from "../registry.js";

/**
 * How long each look at the database may take. A load balancer asks often and must get an answer:
 * a database that refuses, hangs or drops packets reads as down within this bound.
 */
export const HEALTH_TIMEOUT_MS = 2000;

function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(
        () => reject(new Error(`${what}: no answer within ${HEALTH_TIMEOUT_MS} ms`)),
        HEALTH_TIMEOUT_MS,
      )),
  );
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
    200: {
      description:
        "Up: status ok, or degraded (no live worker, or a required OS tool missing; " +
        "`tools.missing` names it, `tools.fix` installs it)",
    },
    503: {
      description:
        'A part is down; the body says which (`database.error: "unreachable"` with the reason in `database.detail`)',
    },
  },
  async handler(ctx) {
    const { services } = ctx;
    const started = Date.now();
    const database = await within(services.db.query("select 1"), "database")
      .then(() => ({ ok: true, kind: services.db.kind, latency_ms: Date.now() - started }))
      // The driver's own words (ECONNREFUSED, a timeout), not the API's database_unavailable wrapper.
      .catch((err: Error) => ({
        ok: false,
        kind: services.db.kind,
        error: "unreachable",
        detail: ((err.cause as Error | undefined) ?? err).message,
      }));
    // With the database down the rest cannot be read either: say so without waiting on each.
    const queue = !database.ok
      ? { ok: false, error: "database unreachable" }
      : await within(services.queue.counts(), "queue")
          .then((c) => ({ ok: true, ...c }))
          .catch((err: Error) => ({ ok: false, error: err.message }));
    const live = database.ok ? await within(services.workers.live(), "workers").catch(() => []) : [];
    const workers = {
      ok: live.length > 0,
      count: live.length,
      list: live.map((w) => ({
        id: w.id,
        roles: w.roles,
        concurrency: w.concurrency,
        active: w.active,
        seen_at: w.seen_at,
      })),
    };
    // A file-system look (no process spawned), cached for a while: see daemon/ops/os-packages.ts.
    const tools = toolHealth({ fontsDir: fontsDirOf(services.config) });
    const ok = database.ok && queue.ok;
    ctx.status = ok ? 200 : 503;
    return {
      status: ok ? (workers.ok && tools.ok ? "ok" : "degraded") : "down",
      version: services.version,
      database,
      queue,
      workers,
      tools,
      // The background fetch of the whisper model in this process (null: this process has not looked).
      transcribe_model: modelStatus(),
    };
  },
});

/**
 * Readiness, for a load balancer deciding where to send requests (`/healthz` is liveness: is the
 * process alive and what is wrong). Ready means: not shutting down, the database answers, the
 * store takes a write, and the OS tools the stages need are installed. Anything else is 503 with
 * the failing part named, so the balancer takes this instance out while it drains or is broken.
 */
export const readyz = defineOperation({
  id: "ready",
  method: "GET",
  path: "/readyz",
  summary: "Whether this instance should get requests: not draining, database and store reachable, tools installed",
  scope: null,
  tags: ["ops"],
  responses: {
    200: { description: "Ready: `ready: true`" },
    503: {
      description: "Not ready: `draining` (shutting down since `draining_since`), or the failing check in `checks`",
    },
  },
  async handler(ctx) {
    const { services } = ctx;
    const since = services.drain?.since();
    const database = await within(services.db.query("select 1"), "database").then(
      () => ({ ok: true }),
      (err: Error) => ({ ok: false, detail: ((err.cause as Error | undefined) ?? err).message }),
    );
    // A write and a remove of a small probe: a full disk or a store that refuses writes is not ready.
    const probe = `.readyz/${process.pid}`;
    const store = await within(
      services.storage.write(probe, "ok").then(() => services.storage.remove(probe)),
      "store",
    ).then(
      () => ({ ok: true }),
      (err: Error) => ({ ok: false, detail: err.message }),
    );
    const t = toolHealth({ fontsDir: fontsDirOf(services.config) });
    const tools = { ok: t.ok, ...(t.ok ? {} : { missing: t.missing }) };
    const ready = !since && database.ok && store.ok && tools.ok;
    ctx.status = ready ? 200 : 503;
    return {
      ready,
      draining: !!since,
      ...(since ? { draining_since: since.toISOString() } : {}),
      checks: { database, store, tools },
    };
  },
});
