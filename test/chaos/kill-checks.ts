// The checks after the kills, read from the database (with the daemon stopped: PGlite has one
// owner at a time), the webhook receiver and the data folder. Each problem is "lost" (work that
// never finished, or finished without its effects) or "duplicated" (work or effects twice).
import { readdir } from "node:fs/promises";
import path from "node:path";
import { openDb, type Queryable } from "../../daemon/store/db.js";
import { callbackPath, type Subject, type World } from "./kill-world.js";

export interface Problem {
  kind: "lost" | "duplicated" | "stray";
  /** The subject's name; "" for problems of the world (stray files). */
  subject: string;
  what: string;
}

const json = <T>(v: unknown): T => (typeof v === "string" ? JSON.parse(v) : v) as T;

/** Every problem found; an empty list means every subject held. */
export async function checkWorld(w: World, subjects: Subject[]): Promise<Problem[]> {
  const problems: Problem[] = [];
  const db = await openDb({ databaseUrl: w.d.databaseUrl, dataDir: w.dataDir });
  let watchIds = new Set<string>();
  try {
    watchIds =
      w.path === "watch"
        ? new Set((await db.query(`select id from watch_files`)).rows.map((r: any) => String(r.id)))
        : watchIds;
    for (const s of subjects) {
      const found = s.free
        ? await checkFreeJob(db, w, s)
        : w.path === "api"
          ? await checkEpisode(db, w, s)
          : await checkWatchFile(db, s);
      problems.push(...found.map((p) => ({ ...p, subject: s.name })));
    }
    // Nothing may wait on the queue once the daemon stopped with every subject finished (issue 27).
    const { rows: left } = await db.query(`select id, pipeline, state from runs where state in ('queued', 'running')`);
    for (const r of left)
      problems.push({ kind: "lost", subject: "", what: `run ${r.id} (${r.pipeline}) left ${r.state}` });
  } finally {
    await db.close();
  }
  problems.push(...(await strayFiles(w, subjects, watchIds)));
  return problems;
}

type Found = Omit<Problem, "subject">;

/** Exactly `want` of something: fewer is lost work, more is duplicated work. */
function exactly(out: Found[], what: string, got: number, want: number) {
  if (got < want) out.push({ kind: "lost", what: `${what}: ${got}, expected ${want}` });
  if (got > want) out.push({ kind: "duplicated", what: `${what}: ${got}, expected ${want}` });
}

/** Runs: one per piece of work, each of whose steps succeeded (a step may have needed attempts). */
async function checkRuns(q: Queryable, out: Found[], label: string, where: string, params: unknown[], want: number) {
  const { rows } = await q.query(`select id, state, steps from runs where ${where}`, params);
  exactly(out, `${label} runs`, rows.length, want);
  for (const r of rows) {
    const steps = json<Array<{ stage: string; state: string }>>(r.steps);
    if (r.state !== "succeeded") out.push({ kind: "lost", what: `${label} run ${r.id} ended ${r.state}` });
    else if (steps.some((st) => st.state !== "succeeded"))
      out.push({
        kind: "lost",
        what: `${label} run ${r.id} has steps ${steps.map((st) => `${st.stage}:${st.state}`).join(",")}`,
      });
  }
  return rows as Array<{ id: string }>;
}

async function countEvents(q: Queryable, sql: string, params: unknown[]): Promise<Map<string, number>> {
  const { rows } = await q.query(`select type, count(*)::int as n from events where ${sql} group by type`, params);
  return new Map(rows.map((r: any) => [r.type, r.n]));
}

async function checkEpisode(q: Queryable, w: World, s: Subject): Promise<Found[]> {
  const out: Found[] = [];
  const { rows: eps } = await q.query(`select id, status from episodes where name = $1`, [s.name]);
  exactly(out, "episodes", eps.length, 1);
  const ep = eps.find((e: any) => e.id === s.episodeId) ?? eps[0];
  if (!ep) return out;
  if (ep.status === "failed" && s.mayFail) return checkCrashedEpisode(q, w, ep.id, out);
  if (ep.status !== "ready") out.push({ kind: "lost", what: `episode is ${ep.status}` });
  await checkRuns(q, out, "import", `origin_ref = $1`, [`episode:${ep.id}`], 1);
  await checkRuns(q, out, "search", `origin_ref = $1`, [`search:${ep.id}`], 1);
  const { rows: jobs } = await q.query(`select id, status from jobs where episode_id = $1`, [ep.id]);
  exactly(out, "export jobs", jobs.length, s.jobId ? 1 : 0);
  for (const j of jobs) await checkRuns(q, out, "export", `origin_ref = $1`, [`job:${j.id}`], 1);
  const events = await countEvents(q, `data->>'episode_id' = $1`, [ep.id]);
  const wanted: Record<string, number> = {
    "episode.ready": 1,
    "episode.failed": 0,
    "clip.ready": jobs.length,
    "clip.failed": 0,
  };
  for (const [type, n] of Object.entries(wanted)) exactly(out, `${type} events`, events.get(type) ?? 0, n);
  // One delivery per event, delivered; and at the receiver one webhook-id per event, acknowledged.
  const { rows: dels } = await q.query(
    `select e.id, e.type, count(d.id)::int as n, bool_and(d.status = 'delivered') ` +
      `as ok from events e left join deliveries d on d.event_id = e.id where ` +
      `e.data->>'episode_id' = $1 group by e.id, e.type`,
    [ep.id],
  );
  for (const d of dels) {
    exactly(out, `deliveries of ${d.type}`, d.n, 1);
    if (!d.ok) out.push({ kind: "lost", what: `a delivery of ${d.type} is not delivered` });
  }
  // A receipt the daemon has no 200 attempt for is an attempt a kill cut short: sending it again
  // is right. Two recorded 200s for one delivery would be a delivered event sent again.
  const { rows: oks } = await q.query(
    `select d.event_type, count(*)::int as n from deliveries d join delivery_attempts ` +
      `a on a.delivery_id = d.id join events e on e.id = d.event_id where e.data->>'episode_id' ` +
      `= $1 and a.status_code between 200 and 299 group by d.id, d.event_type`,
    [ep.id],
  );
  for (const o of oks)
    if (o.n > 1) out.push({ kind: "duplicated", what: `${o.event_type} delivered and recorded ${o.n} times` });
  const receipts = w.rx.receipts
    .map((r) => ({ r, body: JSON.parse(r.body) as { type: string; data: { episode_id?: string } } }))
    .filter((x) => x.body.data.episode_id === ep.id);
  for (const type of Object.keys(wanted).filter((t) => wanted[t])) {
    const mine = receipts.filter((x) => x.body.type === type);
    exactly(out, `distinct webhook-ids received for ${type}`, new Set(mine.map((x) => x.r.id)).size, 1);
    if (mine.length && !mine.some((x) => x.r.answered === 200 && x.r.verified))
      out.push({ kind: "lost", what: `${type} never acknowledged with a verified signature` });
  }
  const { rows: charges } = await q.query(
    `select count(*)::int as n from ledger where ref = $1 and kind in ('episode', 'episode_plan')`,
    [ep.id],
  );
  exactly(out, "charges", charges[0].n, 1);
  return out;
}

/**
 * An episode whose import step was killed crash_limit times in a row: its import run failed with
 * crashed_repeatedly (not left running), nothing searched, nothing charged, and episode.failed
 * recorded once, delivered once and acknowledged.
 */
async function checkCrashedEpisode(q: Queryable, w: World, id: string, out: Found[]): Promise<Found[]> {
  const { rows: runs } = await q.query(`select state, error from runs where origin_ref = $1`, [`episode:${id}`]);
  exactly(out, "import runs", runs.length, 1);
  for (const r of runs) {
    const code = json<{ code?: string } | null>(r.error)?.code;
    if (r.state !== "failed" || code !== "crashed_repeatedly")
      out.push({ kind: "lost", what: `import run ended ${r.state} (${code}), expected failed (crashed_repeatedly)` });
  }
  const events = await countEvents(q, `data->>'episode_id' = $1`, [id]);
  exactly(out, "episode.failed events", events.get("episode.failed") ?? 0, 1);
  exactly(out, "episode.ready events", events.get("episode.ready") ?? 0, 0);
  const { rows: dels } = await q.query(
    `select count(d.id)::int as n, bool_and(d.status = 'delivered') as ok from events e ` +
      `left join deliveries d on d.event_id = e.id where e.data->>'episode_id' = $1 and e.type = 'episode.failed'`,
    [id],
  );
  exactly(out, "deliveries of episode.failed", dels[0]?.n ?? 0, 1);
  if (dels[0] && !dels[0].ok) out.push({ kind: "lost", what: "episode.failed is not delivered" });
  const ids = new Set(
    w.rx.receipts
      .filter((r) => {
        const b = JSON.parse(r.body) as { type: string; data: { episode_id?: string } };
        return b.type === "episode.failed" && b.data.episode_id === id;
      })
      .map((r) => r.id),
  );
  exactly(out, "distinct webhook-ids received for episode.failed", ids.size, 1);
  const { rows: charges } = await q.query(`select count(*)::int as n from ledger where ref = $1`, [id]);
  exactly(out, "charges", charges[0].n, 0);
  return out;
}

/**
 * A free-API transcription whose callback a kill cut: the job completed once, and its callback
 * arrived under one webhook-id (the same on the retry), acknowledged with a verified signature.
 */
async function checkFreeJob(q: Queryable, w: World, s: Subject): Promise<Found[]> {
  const out: Found[] = [];
  const { rows } = await q.query(`select status from free_jobs where id = $1`, [s.freeId]);
  exactly(out, "free jobs", rows.length, 1);
  if (rows[0] && rows[0].status !== "completed") out.push({ kind: "lost", what: `free job is ${rows[0].status}` });
  const mine = w.rx.receipts.filter((r) => r.path === callbackPath(s));
  exactly(out, "distinct webhook-ids of the callback", new Set(mine.map((r) => r.id)).size, 1);
  if (!mine.some((r) => r.answered === 200 && r.verified))
    out.push({ kind: "lost", what: "the callback was never acknowledged with a verified signature" });
  return out;
}

async function checkWatchFile(q: Queryable, s: Subject): Promise<Found[]> {
  const out: Found[] = [];
  const { rows } = await q.query(`select id, state, outbox, run_id, children from watch_files where name = $1`, [
    s.name,
  ]);
  exactly(out, "watch_files rows", rows.length, 1);
  const row = rows[0];
  if (!row) return out;
  const stem = s.name.replace(/\.[^.]+$/, "");
  if (row.state !== "done") out.push({ kind: "lost", what: `watch file is ${row.state}` });
  if (row.outbox !== stem)
    out.push({ kind: row.outbox ? "duplicated" : "lost", what: `outbox recorded as ${row.outbox}, expected ${stem}` });
  await checkRuns(q, out, "episode", `origin = 'watch' and origin_ref = $1 and pipeline = 'episode'`, [s.name], 1);
  const children = json<string[] | null>(row.children) ?? [];
  const clips = await checkRuns(
    q,
    out,
    "clip render",
    `origin = 'watch' and origin_ref = $1 and pipeline = 'clip'`,
    [s.name],
    children.length,
  );
  exactly(out, "clip renders recorded", children.length, 1);
  const runIds = [row.run_id, ...clips.map((c) => c.id)];
  const events = await countEvents(q, `run_id = any($1::uuid[])`, [runIds]);
  exactly(out, "episode.ready events", events.get("episode.ready") ?? 0, 1);
  exactly(out, "clip.ready events", events.get("clip.ready") ?? 0, clips.length);
  return out;
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const e of entries) {
    const p = path.join(dir, e.name);
    files.push(p);
    if (e.isDirectory()) files.push(...(await walk(p)));
  }
  return files;
}

/** Files a crash may leave: partial uploads or downloads, temporary outbox folders, work left in processing/. */
async function strayFiles(w: World, subjects: Subject[], watchIds: Set<string>): Promise<Problem[]> {
  const out: Problem[] = [];
  const rel = (p: string) => path.relative(w.dataDir, p);
  for (const f of await walk(w.dataDir)) {
    // A PUT cut by a kill leaves its part file for the upload sweeper (an hour without writes:
    // facade/upload-sweeper.ts); it never becomes the upload. Any other part file is stray.
    if (/\.part$/.test(f) && !(w.path === "api" && /^storage\/uploads\//.test(rel(f))))
      out.push({ kind: "stray", subject: "", what: `partial file ${rel(f)}` });
  }
  if (w.path !== "watch") return out;
  for (const dir of ["inbox", "processing", "failed"]) {
    for (const f of await readdir(path.join(w.dataDir, dir)).catch(() => [] as string[]))
      out.push({ kind: "stray", subject: "", what: `${dir}/${f} left` });
  }
  const outbox = await readdir(path.join(w.dataDir, "outbox")).catch(() => [] as string[]);
  const stems = new Set(subjects.map((s) => s.name.replace(/\.[^.]+$/, "")));
  for (const f of outbox) {
    if (f.startsWith(".")) out.push({ kind: "stray", subject: "", what: `temporary outbox folder ${f}` });
    else if (!stems.has(f)) out.push({ kind: "duplicated", subject: "", what: `extra outbox folder ${f}` });
  }
  for (const s of stems)
    if (!outbox.includes(s)) out.push({ kind: "lost", subject: `${s}.wav`, what: `no outbox folder ${s}` });
  // A file's stored copy is made before its row (beginFile() in daemon/watch/begin.ts): a crash
  // between them makes a second copy at the restart and leaves the first one, under no row.
  for (const id of await readdir(path.join(w.dataDir, "storage", "uploads", "watch")).catch(() => [] as string[])) {
    if (!watchIds.has(id))
      out.push({ kind: "stray", subject: "", what: `storage/uploads/watch/${id} belongs to no watch_files row` });
  }
  return out;
}
