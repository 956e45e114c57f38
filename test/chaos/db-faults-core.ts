/**
 * Database faults, shared by test/chaos/db-faults.test.ts (short) and bench/chaos/db-faults.ts
 * (full): a real clipd (work + serve) on PostgreSQL reached through a proxy (db-faults-proxy.ts),
 * given runs to do, then the database is restarted (sessions ended by the server, refused for a
 * moment), refused for `outageMs` and hung for `hangMs`. /healthz and GET /me are polled
 * throughout; afterwards every run must reach its expected end, every event be written once and
 * delivered to the receiver under one id.
 */
import path from "node:path";
import pino from "pino";
import pg from "pg";
import { loadConfig, mergeDeep, projectRoot } from "../../config/loader.js";
import { runAdmin } from "../../daemon/account/admin.js";
import { openApp } from "../../daemon/boot/app.js";
import { startRoles } from "../../daemon/boot/roles.js";
import { freshPgDatabase, backendEnv } from "../helpers/backends.js";
import { waitFor } from "../helpers/wait.js";
import { startReceiver } from "../helpers/webhook-receiver.js";
import { startPgProxy } from "./db-faults-proxy.js";

export interface DbFaultOptions {
  /** Runs started before each fault, of each kind (pipeline run, API transcript). */
  perBatch: number;
  /** How long the database refuses connections in the second fault. */
  outageMs: number;
  /** How long the restart keeps it down. */
  restartMs: number;
  /** How long the database then hangs (connections taken, never answered). */
  hangMs: number;
  /** /healthz must answer within this many ms during an outage. */
  healthBoundMs: number;
}

export interface HealthSample {
  phase: string;
  status: number | "hang";
  ms: number;
  database?: string;
  detail?: string;
}

/** An API call made beside each /healthz probe: what a client sees meanwhile. */
export interface ApiSample {
  phase: string;
  status: number | "hang";
  code?: string;
  ms: number;
}

export interface DbFaultReport {
  api: ApiSample[];
  tried: number;
  held: number;
  lost: string[];
  health: HealthSample[];
  unhandled: string[];
  ms: number;
}

/** Progress lines on stderr when CHAOS_DEBUG is set: where a stuck run stopped. */
const say = (msg: string) => process.env.CHAOS_DEBUG && process.stderr.write(`db-faults: ${msg}\n`);

async function terminateSessions(databaseUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: process.env.CLIPD_TEST_PG_URL });
  await admin.connect();
  try {
    await admin.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`,
      [new URL(databaseUrl).pathname.slice(1)],
    );
  } finally {
    await admin.end();
  }
}

export async function runDbFaults(o: DbFaultOptions): Promise<DbFaultReport> {
  const t0 = Date.now();
  const unhandled: string[] = [];
  const onUnhandled = (err: unknown) => void unhandled.push(String((err as Error)?.stack ?? err));
  process.on("unhandledRejection", onUnhandled);
  const direct = await freshPgDatabase();
  const proxy = await startPgProxy(direct);
  const rx = await startReceiver();
  const { env, dataDir } = await backendEnv("pglite"); // only its data folder: the database is the proxied one
  const root = projectRoot();
  process.env.CLIPD_TEST_MARKERS = path.join(dataDir, "markers");
  const cfg = loadConfig({
    env: { ...env, DATABASE_URL: proxy.url },
    overrides: mergeDeep(
      {
        plugins: [path.join(root, "test", "fixtures", "stages", "test-stages.mjs")],
        pipelines: { ops_dir: path.join(root, "test", "fixtures", "pipelines") },
        watch: { enabled: false },
        server: { port: 0, host: "127.0.0.1", public_url: "" },
        log: { level: "silent" },
        queue: { heartbeat_seconds: 10 },
        network: { allow_loopback: true, extra_ca: rx.server.caPath },
        webhooks: { time_scale: 0.002, timeout_ms: 2000 },
      },
      {},
    ),
  });
  const app = await openApp(cfg, pino({ level: process.env.CLIPD_TEST_LOG ?? "silent" }));
  const roles = await startRoles(app, ["work", "serve"]);
  const base = roles.url!;
  const health: HealthSample[] = [];
  const api: ApiSample[] = [];
  const runs: Array<{ id: string; expect: "succeeded" | "failed"; kind: string }> = [];
  try {
    const a = await runAdmin(app.accounts, "account.create", {
      email: `dbf${Date.now()}@example.com`,
      credit_cents: 100_000,
      plan: true,
    });
    const { key } = await runAdmin(app.accounts, "key.create", {
      account: a.account_id,
      mode: "live",
      scopes: "transcripts,webhooks",
    });
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const hook = (await (
      await fetch(`${base}/api/v1/webhooks`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ url: rx.path("/hook"), events: ["transcript.failed"] }),
      })
    ).json()) as any;
    if (!hook.id) throw new Error(`webhook not made: ${JSON.stringify(hook)}`);
    // 404: the transcript fails at once, with an event. One link each: a link already ordered may share its run.
    let n = 0;
    const missing = () => rx.server.url(`/missing/talk-${n++}.mp3`);

    const batch = async () => {
      for (let i = 0; i < o.perBatch; i++) {
        runs.push({ id: (await app.runner.startRun("t-sleep-event", {})).id, expect: "succeeded", kind: "pipeline" });
        const res = await fetch(`${base}/api/v1/transcripts`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ url: missing() }),
        });
        const body = (await res.json()) as any;
        if (res.status !== 202) throw new Error(`transcript refused: ${res.status} ${JSON.stringify(body)}`);
        // Its run is made a moment later; the transcript's id stands in until then.
        runs.push({ id: body.id, expect: "failed", kind: "transcript" });
      }
    };
    const probeHealth = async (phase: string) => {
      const started = Date.now();
      try {
        const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(o.healthBoundMs * 3) });
        const body = (await res.json()) as any;
        health.push({
          phase,
          status: res.status,
          ms: Date.now() - started,
          database: body.database?.error ?? (body.database?.ok ? "ok" : undefined),
          detail: body.database?.detail,
        });
      } catch {
        health.push({ phase, status: "hang", ms: Date.now() - started });
      }
    };
    const probeApi = async (phase: string) => {
      const started = Date.now();
      try {
        const res = await fetch(`${base}/api/v1/me`, {
          headers: auth,
          signal: AbortSignal.timeout(o.healthBoundMs * 5),
        });
        const body = (await res.json()) as any;
        api.push({ phase, status: res.status, code: body.error?.code, ms: Date.now() - started });
      } catch {
        api.push({ phase, status: "hang", ms: Date.now() - started });
      }
    };
    const probe = (phase: string) => Promise.all([probeHealth(phase), probeApi(phase)]);
    const probeFor = async (phase: string, ms: number) => {
      const end = Date.now() + ms;
      // Paced like a load balancer's checks (10 a second), so the probes are not the load.
      // Two loops side by side, so an API call the database holds up does not stop the health checks.
      const loop = async (one: (phase: string) => Promise<void>) => {
        while (Date.now() < end) await Promise.all([one(phase), new Promise((r) => setTimeout(r, 100))]);
      };
      await Promise.all([loop(probeHealth), loop(probeApi)]);
      const mine = health.filter((h) => h.phase === phase);
      const calls = api.filter((h) => h.phase === phase);
      say(
        `${phase}: GET /me ${JSON.stringify([...new Set(calls.map((h) => `${h.status} ${h.code ?? ""}`))])}, ` +
          `slowest ${Math.max(...calls.map((h) => h.ms))} ms`,
      );
      say(
        `${phase}: ${mine.length} probes, statuses ${[...new Set(mine.map((h) => h.status))]}, ` +
          `slowest ${Math.max(...mine.map((h) => h.ms))} ms, ${mine[0]?.database} ` +
          `(${mine[0]?.detail})`,
      );
    };

    await batch();
    say(`first batch started (${runs.length} runs)`);
    await probe("before");
    // Restart: as a fast shutdown does, the server ends every session of clipd's database with
    // FATAL 57P01 (pg_terminate_backend), then refuses new connections for a moment.
    await terminateSessions(direct);
    await proxy.refuse();
    await probeFor("restart", o.restartMs);
    await proxy.pass();
    await batch();
    say(`second batch started (${runs.length} runs)`);
    // Outage: refused for outageMs while runs are under way.
    await proxy.refuse();
    await probeFor("outage", o.outageMs);
    await proxy.pass();
    // Hung: connections are taken and never answered; /healthz must still answer within its bound.
    proxy.hold();
    await probeFor("hung", o.hangMs);
    await proxy.pass();
    await waitFor(
      async () => {
        await probe("after");
        return health.at(-1)!.status === 200;
      },
      { what: "/healthz back to 200", timeoutMs: 60_000, intervalMs: 250 },
    );

    say(`healthy again: ${JSON.stringify(health.at(-1))}`);
    const lost: string[] = [];
    await waitFor(
      async () => {
        const { rows } = await app.db.query(`select id, run_id from transcripts where id = any($1::uuid[])`, [
          runs.filter((r) => r.kind === "transcript").map((r) => r.id),
        ]);
        if (rows.some((r: any) => !r.run_id)) return false;
        for (const r of runs) r.id = rows.find((x: any) => x.id === r.id)?.run_id ?? r.id;
        return true;
      },
      { what: "every transcript given its run", timeoutMs: 30_000 },
    ).catch((err) => lost.push(String(err.message)));
    const finals = new Set(["succeeded", "failed", "cancelled"]);
    await waitFor(
      async () => {
        const { rows } = await app.db.query(`select id, state from runs where id = any($1::uuid[])`, [
          runs.map((r) => r.id),
        ]);
        return rows.length === runs.length && rows.every((r: any) => finals.has(r.state));
      },
      { what: "every run at an end", timeoutMs: 60_000, intervalMs: 250 },
    ).catch((err) => lost.push(String(err.message)));
    const { rows: states } = await app.db.query(`select id, state from runs where id = any($1::uuid[])`, [
      runs.map((r) => r.id),
    ]);
    const stateOf = new Map(states.map((r: any) => [r.id, r.state]));
    say(`runs: ${JSON.stringify(states.map((r: any) => r.state))}`);
    const { rows: evs } = await app.db.query(
      `select run_id, count(*)::int as n from events where run_id = any($1::uuid[]) group by run_id`,
      [runs.map((r) => r.id)],
    );
    const eventsOf = new Map(evs.map((r: any) => [r.run_id, r.n]));
    // Each failed transcript's event is delivered: wait for the receiver to hear every one.
    const transcripts = runs.filter((r) => r.kind === "transcript");
    const deliveries = async () =>
      (
        await app.db.query(
          `select d.id, d.status, e.run_id from deliveries d join events e on e.id ` +
            `= d.event_id where e.run_id = any($1::uuid[])`,
          [transcripts.map((r) => r.id)],
        )
      ).rows as any[];
    await waitFor(
      async () => {
        const ds = await deliveries();
        const heard = new Set(rx.receipts.map((r) => r.id));
        return ds.length >= transcripts.length && ds.every((d) => heard.has(d.id));
      },
      { what: "every delivery heard", timeoutMs: 30_000, intervalMs: 250 },
    ).catch((err) => lost.push(String(err.message)));
    const ds = await deliveries();
    let held = 0;
    for (const r of runs) {
      const why: string[] = [];
      if (stateOf.get(r.id) !== r.expect) why.push(`state ${stateOf.get(r.id)} (expected ${r.expect})`);
      if ((eventsOf.get(r.id) ?? 0) !== 1) why.push(`${eventsOf.get(r.id) ?? 0} events`);
      if (r.kind === "transcript") {
        const mine = ds.filter((d) => d.run_id === r.id);
        const ids = new Set(rx.receipts.filter((x) => mine.some((d) => d.id === x.id)).map((x) => x.id));
        if (mine.length !== 1) why.push(`${mine.length} deliveries`);
        else if (ids.size !== 1) why.push("delivery not heard");
      }
      if (why.length) lost.push(`${r.kind} ${r.id}: ${why.join(", ")}`);
      else held++;
    }
    return { tried: runs.length, held, lost, health, api, unhandled, ms: Date.now() - t0 };
  } finally {
    process.off("unhandledRejection", onUnhandled);
    await proxy.pass().catch(() => {});
    await roles.stop("db faults done").catch(() => {});
    await proxy.close();
    await rx.close();
    const c = new pg.Client({ connectionString: process.env.CLIPD_TEST_PG_URL });
    await c
      .connect()
      .then(() => c.query(`drop database if exists "${new URL(direct).pathname.slice(1)}" with (force)`))
      .catch(() => {})
      .finally(() => c.end().catch(() => {}));
  }
}
