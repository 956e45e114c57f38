// The kill -9 scenario itself: work goes in by batches; during each batch but the first (which
// measures how long a batch takes) the daemon is killed with SIGKILL once, restarted, and the batch
// must finish. Where the kill lands is drawn from a seeded generator: a random moment of the batch,
// or, about half the time, inside a transaction window: at a named crash point (CLIPD_FAULTS), or,
// on PostgreSQL, while the daemon waits on a row lock held by a second connection.
import pg from "pg";
import { waitFor } from "../helpers/wait.js";
import { checkWorld, type Problem } from "./kill-checks.js";
import { callbackPath, World, type Subject, type WorkPath } from "./kill-world.js";
import type { Backend } from "../helpers/backends.js";

export type Plan =
  | { kind: "none" }
  | { kind: "random"; delayMs: number }
  | { kind: "fault"; point: string }
  | { kind: "lock"; table: "episodes" | "watch_files"; when: string }
  /** The stand-in's sleep step killed `times` in a row, each at `delaysMs[i]` after it started. */
  | { kind: "repeat"; times: number; delaysMs: number[] }
  /** API path: the episode is uploaded, and the daemon killed `delayMs` into the whole-file PUT. */
  | { kind: "put"; delayMs: number }
  /** API path: a free-API transcription, and the daemon killed while its callback waits for an answer. */
  | { kind: "callback" };

/** How long holdRowLock waits for a row to reach its state, then for the daemon to wait on it. */
const LOCK_WAIT_MS = 90_000;

/** The crash limit the daemons run with (queue.crash_limit's default): a step killed this often fails its run. */
export const CRASH_LIMIT = 3;

export interface KillOptions {
  backend: Backend;
  path: WorkPath;
  /** Pieces of work in all, the first batch included. */
  n: number;
  batch: number;
  seed: number;
  /** Export clip 1 of every n-th episode (API path). */
  exportEvery?: number;
  /** Probability that a kill is forced into a transaction window. */
  windowShare?: number;
  /** Chooses the kill of batch `i` (1-based; batch 0 is never killed) instead of drawPlan. */
  plan?: (i: number, r: () => number, spanMs: number) => Plan;
  /** An ops pipelines folder (replaces pipelines by name: cheap stand-ins for the test). */
  pipelinesDir?: string;
  log?: (line: string) => void;
}

export interface KillReport {
  backend: Backend;
  path: WorkPath;
  tried: number;
  held: number;
  lost: number;
  duplicated: number;
  stray: number;
  /** idle: random kills that came after the batch's work was over (counted in random too). */
  kills: {
    random: number;
    window: number;
    missed: number;
    idle: number;
    step: number;
    put: number;
    callback: number;
  };
  problems: Problem[];
  plans: string[];
  ms: number;
}

/** mulberry32: small, seedable, the same sequence on every machine. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A world's own seed, so one backend or path run alone repeats its part of a full run. */
export function worldSeed(seed: number, backend: Backend, path: WorkPath): number {
  let h = seed >>> 0;
  for (const c of `${backend}/${path}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h;
}

/** The crash points each path goes through, in the order work reaches them. */
export function faultPoints(path: WorkPath, exportClip: boolean): string[] {
  if (path === "watch")
    return ["run-end:episode", "watch:renders-started", "run-end:clip", "watch:outbox-partial", "watch:outbox-written"];
  return [
    "after-handler:createEpisode",
    "run-end:api-episode",
    "run-end:api-search",
    ...(exportClip ? ["after-handler:exportClips", "run-end:clip"] : []),
  ];
}

export function drawPlan(r: () => number, o: KillOptions, spanMs: number): Plan {
  if (r() >= (o.windowShare ?? 0.5)) return { kind: "random", delayMs: Math.round(r() * spanMs) };
  if (o.backend === "postgres" && r() < 0.5) {
    const whens = o.path === "api" ? ["importing", "searching"] : ["running", "rendering"];
    return {
      kind: "lock",
      table: o.path === "api" ? "episodes" : "watch_files",
      when: whens[Math.floor(r() * whens.length)]!,
    };
  }
  const points = faultPoints(o.path, !!o.exportEvery);
  return { kind: "fault", point: points[Math.floor(r() * points.length)]! };
}

export const describePlan = (p: Plan): string => {
  if (p.kind === "random") return `random ${p.delayMs} ms`;
  if (p.kind === "fault") return `fault ${p.point}`;
  if (p.kind === "lock") return `lock ${p.table} while ${p.when}`;
  if (p.kind === "repeat") return `sleep step killed ${p.times}x in a row (${p.delaysMs.join(", ")} ms in)`;
  if (p.kind === "put") return `PUT killed ${p.delayMs} ms in`;
  if (p.kind === "callback") return "killed during a free-API callback";
  return "none";
};

/**
 * Holds the row of `table` for one of the batch's subjects once it reaches state `when`, until
 * the daemon waits on it (pg_stat_activity); resolves with a release function, or undefined when
 * the daemon never came to wait (the work went past that state first).
 */
async function holdRowLock(
  w: World,
  subjects: Subject[],
  table: "episodes" | "watch_files",
  when: string,
  log: (l: string) => void,
): Promise<(() => Promise<void>) | undefined> {
  const c = new pg.Client({ connectionString: w.d.databaseUrl });
  await c.connect();
  // pg_stat_activity is read once per transaction and then held: watched from inside the locking
  // transaction it never shows the daemon starting to wait. A second connection watches, each
  // query its own transaction.
  const watch = new pg.Client({ connectionString: w.d.databaseUrl });
  await watch.connect();
  const col = table === "episodes" ? "status" : "state";
  const names = subjects.map((s) => s.name);
  // Each wait also ends when the batch's work is over: then it went past the state, and nothing
  // will ever reach it (a bounded wait, so a miss is reported, not hung on until the test's limit).
  const over = async () => (await Promise.all(subjects.map((s) => w.finished(s).catch(() => false)))).every(Boolean);
  try {
    const id = await waitFor(
      async () =>
        ((await c.query(`select id from ${table} where name = any($1) and ${col} = $2 limit 1`, [names, when])).rows[0]
          ?.id as string | undefined) ?? ((await over()) ? "" : undefined),
      { what: `a ${table} row to be ${when}`, timeoutMs: LOCK_WAIT_MS, intervalMs: 50 },
    ).catch(() => undefined);
    if (!id) throw new Error("no row reached the state");
    log(`${w.backend}/${w.path}: ${table} row ${id} is ${when}; locking it`);
    await c.query("begin");
    const held = await c.query(`select id from ${table} where id = $1 and ${col} = $2 for update`, [id, when]);
    if (!held.rows.length) throw new Error("the row moved on before it was locked");
    const waiting = await waitFor(
      async () =>
        (
          await watch.query(
            `select count(*)::int as n from pg_stat_activity where datname = current_database() ` +
              // A row lock's waiter waits on the holder's transaction (or the tuple); an advisory
              // lock taken by the queue's maintenance is a Lock wait too, and is not this one.
              `and wait_event_type = 'Lock' and wait_event in ('transactionid', 'tuple')`,
          )
        ).rows[0].n > 0,
      { what: "the daemon to wait on the lock", timeoutMs: LOCK_WAIT_MS, intervalMs: 50 },
    ).catch(() => false);
    if (!waiting) {
      // What the daemon's connections were doing instead, for the report.
      const { rows } = await watch.query(
        `select state, wait_event_type, wait_event, left(query, 160) as query from pg_stat_activity ` +
          `where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'`,
      );
      log(`${w.backend}/${w.path}: busy connections while the lock was held: ${JSON.stringify(rows)}`);
      throw new Error("the daemon never waited");
    }
    log(`${w.backend}/${w.path}: the daemon waits on the lock`);
    await watch.end();
    return async () => {
      await c.query("rollback").catch(() => {});
      await c.end();
    };
  } catch (err) {
    log(`${w.backend}/${w.path}: no lock wait (${(err as Error).message}); the kill counts as random`);
    await c.end();
    await watch.end().catch(() => {});
    return undefined;
  }
}

/** Runs one world (backend × path) through its batches and checks it. */
export async function runKills(o: KillOptions): Promise<KillReport> {
  const t0 = Date.now();
  const log = o.log ?? (() => {});
  const r = rng(worldSeed(o.seed, o.backend, o.path));
  const w = await World.open(o.backend, o.path, { exportEvery: o.exportEvery, pipelinesDir: o.pipelinesDir });
  const subjects: Subject[] = [];
  const plans: string[] = [];
  const kills = { random: 0, window: 0, missed: 0, idle: 0, step: 0, put: 0, callback: 0 };
  const stuck: Problem[] = [];
  let spanMs = 0;
  let held = false;
  try {
    await w.start();
    if (o.path === "api") await w.setUpAccount();
    for (let first = 0; first < o.n; first += o.batch) {
      const batch: Subject[] = [];
      for (let i = first; i < Math.min(o.n, first + o.batch); i++)
        batch.push({ n: i, name: o.path === "api" ? `kill-${i}` : `kill-${i}.wav` });
      subjects.push(...batch);
      const plan: Plan =
        first === 0
          ? { kind: "none" }
          : (o.plan ?? ((_i, rr, span) => drawPlan(rr, o, span)))(first / o.batch, r, spanMs);
      plans.push(describePlan(plan));
      const faults = plan.kind === "fault" ? plan.point : "";
      if (w.faults !== faults) await w.stop();
      if (!w.alive()) await w.start(faults);
      for (const s of batch) {
        s.upload = plan.kind === "put";
        s.free = plan.kind === "callback";
        s.mayFail = plan.kind === "repeat" && plan.times >= CRASH_LIMIT;
      }
      const sleeps = w.sleepStarts();
      const t = Date.now();
      log(`${o.backend}/${o.path} batch ${first / o.batch + 1}: submitting (${describePlan(plan)})`);
      // A PUT plan kills while the PUT is on the way: the submission is not waited for first.
      const submitting = Promise.all(batch.map((s) => w.submit(s)));
      if (plan.kind !== "put") await submitting;
      let release: (() => Promise<void>) | undefined;
      if (plan.kind === "put") {
        await waitFor(() => !w.alive() || Date.now() - t >= plan.delayMs, { timeoutMs: 60_000, intervalMs: 5 });
        if (w.alive()) {
          await w.kill();
          kills.put++;
        } else kills.missed++;
        await submitting; // answers false for a submission the kill cut; finished() sends it again
      } else if (plan.kind === "callback") {
        // The receiver never answers the first callback: the kill lands while the courier waits.
        const seen = await waitFor(() => batch.every((s) => w.rx.receipts.some((r) => r.path === callbackPath(s))), {
          timeoutMs: 240_000,
          intervalMs: 20,
        }).then(
          () => true,
          () => false,
        );
        if (seen && w.alive()) {
          await w.kill();
          kills.callback++;
        } else kills.missed++;
      } else if (plan.kind === "repeat") {
        await killStepRepeatedly(w, batch, plan, sleeps, kills);
      } else if (plan.kind === "random") {
        await waitFor(() => !w.alive() || Date.now() - t >= plan.delayMs, {
          timeoutMs: plan.delayMs + 60_000,
          intervalMs: 10,
        });
      } else if (plan.kind === "lock") {
        release = await holdRowLock(w, batch, plan.table, plan.when, log);
      } else if (plan.kind === "fault") {
        // The daemon kills itself at the point; a batch that finishes first never reached it.
        let over = false;
        const done = waitFor(async () => over || (await Promise.all(batch.map((s) => w.finished(s)))).every(Boolean), {
          timeoutMs: 240_000,
          intervalMs: 250,
        });
        const died = await Promise.race([
          w.daemon!.exited.then(() => true),
          done.then(
            () => false,
            () => false,
          ),
        ]);
        over = true; // stops the polling above, which would otherwise go on calling the API
        if (died) kills.window++;
        else kills.missed++;
      }
      if (plan.kind === "random" || plan.kind === "lock") {
        // A random moment past the batch's work still kills (a restart with nothing in flight must
        // hold too), but is counted apart: it tried no window.
        if (
          plan.kind === "random" &&
          w.alive() &&
          (await Promise.all(batch.map((s) => w.finished(s).catch(() => false)))).every(Boolean)
        )
          kills.idle++;
        if (w.alive()) {
          await w.kill();
          if (plan.kind === "lock" && release) kills.window++;
          else kills.random++;
        } else kills.missed++;
      }
      await release?.();
      log(
        `${o.backend}/${o.path} batch ${first / o.batch + 1}: ${describePlan(plan)}` +
          (first === 0 ? "" : `, daemon ${w.alive() ? "alive" : "killed"}`),
      );
      for (const s of batch) {
        try {
          await w.waitFinished(s);
          log(`${o.backend}/${o.path}: ${s.name} finished`);
        } catch (err) {
          stuck.push({
            kind: "lost",
            subject: s.name,
            what: `did not finish after the kill (${describePlan(plan)}): ${(err as Error).message}`,
          });
        }
      }
      if (first === 0) spanMs = Date.now() - t;
    }
    await w.stop();
    const problems = [...stuck, ...(await checkWorld(w, subjects))];
    held = problems.length === 0;
    const bad = (kind: Problem["kind"]) =>
      new Set(problems.filter((p) => p.kind === kind && p.subject).map((p) => p.subject));
    const lost = bad("lost");
    const dup = bad("duplicated");
    return {
      backend: o.backend,
      path: o.path,
      tried: subjects.length,
      held: subjects.filter((s) => !lost.has(s.name) && !dup.has(s.name)).length,
      lost: lost.size,
      duplicated: dup.size,
      stray: problems.filter((p) => !p.subject).length,
      kills,
      problems,
      plans,
      ms: Date.now() - t0,
    };
  } catch (err) {
    throw new Error(
      `${o.backend}/${o.path}: ${(err as Error).message}\n--- daemon output (end) ---\n${w.output().slice(-3000)}`,
      { cause: err },
    );
  } finally {
    // A world that held leaves nothing in /tmp; one that did not keeps its data folder to look at.
    await w.close(held);
  }
}

/**
 * Kills the daemon each time the stand-in's sleep step starts, `delaysMs[i]` after it started, up
 * to `times` in a row, restarting it in between (the queue hands the step out again once the dead
 * worker's heartbeat lapses). Stops early when the batch's work ends first: at the crash limit
 * the run fails when the step is picked up again, and it never starts.
 */
async function killStepRepeatedly(
  w: World,
  batch: Subject[],
  plan: Extract<Plan, { kind: "repeat" }>,
  sleepsBefore: number,
  kills: KillReport["kills"],
): Promise<void> {
  let before = sleepsBefore;
  const over = async () => (await Promise.all(batch.map((s) => w.finished(s).catch(() => false)))).every(Boolean);
  for (let i = 0; i < plan.times; i++) {
    if (!w.alive()) await w.start();
    await waitFor(async () => w.sleepStarts() > before || (await over()), {
      what: "the sleep step to start again",
      timeoutMs: 240_000,
      intervalMs: 50,
    });
    if (w.sleepStarts() <= before) return;
    await new Promise((r) => setTimeout(r, plan.delaysMs[i]));
    if (!w.alive()) return;
    await w.kill();
    kills.step++;
    before = w.sleepStarts();
  }
}

/** One line per world: tried / held / lost, and how the kills landed. */
export function killTable(reports: KillReport[]): string {
  const head =
    "| backend | path | tried | held | lost | duplicated | stray files | kills: random (after the work) | " +
    "in a transaction window | one step, in a row | mid-PUT | mid-callback | missed | time |";
  const rows = reports.map(
    (r) =>
      `| ${r.backend} | ${r.path} | ${r.tried} | ${r.held} | ${r.lost} | ${r.duplicated} | ${r.stray} | ` +
      `${r.kills.random} (${r.kills.idle}) | ${r.kills.window} | ${r.kills.step} | ${r.kills.put} | ` +
      `${r.kills.callback} | ${r.kills.missed} | ${(r.ms / 1000).toFixed(0)} s |`,
  );
  return [head, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|", ...rows].join("\n");
}
