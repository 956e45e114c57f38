/**
 * Status files of the watch folder: while a file is in processing/, `<name>.status.json` beside it
 * says how far its work has got (stage, percent, the time left when the stage estimates one), so
 * someone looking at the folder sees more than a file sitting there until the outbox appears.
 *
 * - Written by temp file and rename, so a reader never sees half a file; the temp name starts with
 *   a dot, which the folder ignores, and is the writer's own (process and a counter), so two
 *   writes of one status never share a temp file (issue 39: passes that overlapped under load
 *   renamed each other's temp file away, 23 warnings in one trial).
 * - One pass at a time: a tick that finds the last pass still running is skipped.
 * - Rewritten only when what it says changes, and at most once per tick (about a second).
 * - Removed when the file moves on (outbox or failed). A status file left by a crash is only ever
 *   advice: the folder ignores `*.status.json` when it looks for work, and at a start removes the
 *   ones whose file is gone; the next tick rewrites the others from the database.
 */
import { existsSync } from "node:fs";
import { readdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import type { Queryable } from "../store/db.js";
import { etaSeconds } from "../engine/progress.js";
import type { FolderLayout } from "./layout.js";

export const STATUS_SUFFIX = ".status.json";
/** How often the status files are brought up to date. */
const STATUS_MS = 1000;

/** The status pass on a timer. A pass never overlaps a sweep: a sweep waits for the pass in flight. */
export class StatusFiles {
  private timer?: NodeJS.Timeout;
  private pass: Promise<void> = Promise.resolve();
  private readonly said = new Map<string, string>();
  constructor(
    private readonly db: Queryable,
    private readonly layouts: FolderLayout[],
    private readonly log: Logger,
  ) {}

  /** `sweeping` says when a sweep is moving files; no pass starts then. */
  start(sweeping: () => boolean): void {
    let running = false;
    this.timer = setInterval(() => {
      if (sweeping() || running) return;
      running = true;
      this.pass = refreshStatus(this.db, this.layouts, this.said)
        .catch((err) => this.log.warn({ err }, "watch status files not written"))
        .finally(() => {
          running = false;
        });
    }, STATUS_MS);
  }
  /** Resolves once no pass is in flight. */
  idle(): Promise<void> {
    return this.pass;
  }
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.pass;
  }
}

export interface WatchStatus {
  file: string;
  /** `processing` while the file's own run works, `rendering` while its clips render. */
  phase: "queued" | "processing" | "rendering";
  stage: string | null;
  percent: number;
  note: string | null;
  eta_seconds: number | null;
  run_id: string;
  updated_at: string;
}

const statusPath = (l: FolderLayout, name: string) => path.join(l.processing, `${name}${STATUS_SUFFIX}`);

let writes = 0;

export async function writeStatus(l: FolderLayout, name: string, status: WatchStatus): Promise<void> {
  const tmp = path.join(l.processing, `.${name}${STATUS_SUFFIX}.${process.pid}-${++writes}.tmp`);
  const here = () => existsSync(path.join(l.processing, name));
  try {
    await writeFile(tmp, JSON.stringify(status, null, 2) + "\n");
    // The file may have moved on while this was written: no status for a file that is not there.
    if (!here()) return void (await rm(tmp, { force: true }));
    await rename(tmp, statusPath(l, name));
    // It may also move on between that look and the rename (its settle removed the status file
    // first): the status just placed goes with it.
    if (!here()) await removeStatus(l, name);
  } catch (err) {
    await rm(tmp, { force: true });
    // processing/ itself gone (a folder taken away): nothing to say there.
    if ((err as NodeJS.ErrnoException).code !== "ENOENT" || existsSync(l.processing)) throw err;
  }
}

export async function removeStatus(l: FolderLayout, name: string): Promise<void> {
  await rm(statusPath(l, name), { force: true });
}

/** At a start: status files (and their temp files) whose file has left processing/ go. */
export async function removeStaleStatus(l: FolderLayout): Promise<void> {
  const names = new Set(await readdir(l.processing));
  for (const n of names) {
    // The temp files are named `.<name>.status.json.<pid>-<n>.tmp` (older ones `….status.json.tmp`).
    const m = /^\.?(.+?)\.status\.json(\.(?:\d+-\d+\.)?tmp)?$/.exec(n);
    if (m && (m[2] || !names.has(m[1]!))) await rm(path.join(l.processing, n), { force: true });
  }
}

interface Row {
  name: string;
  folder: string;
  state: string;
  run_id: string;
  children: string[] | string | null;
  run_state: string;
  stage: string | null;
  progress: number;
  note: string | null;
  eta_at: string | Date | null;
}

/**
 * One pass over the files in flight: reads their runs (and, while rendering, their clip renders)
 * and rewrites the status files that changed. `last` remembers what each file's status said.
 */
export async function refreshStatus(db: Queryable, layouts: FolderLayout[], last: Map<string, string>): Promise<void> {
  const { rows } = await db.query<Row>(
    `select w.name, w.folder, w.state, w.run_id, w.children, r.state as run_state, r.current_stage as stage, r.progress, r.progress_note as note, r.eta_at
       from watch_files w join runs r on r.id = w.run_id where w.state in ('running', 'rendering') order by w.created_at limit 500`,
  );
  const seen = new Set<string>();
  for (const row of rows) {
    const l = layouts.find((x) => x.inbox === row.folder);
    if (!l) continue;
    const status = await statusOf(db, row);
    const key = `${row.folder}\0${row.name}`;
    seen.add(key);
    const { updated_at: _, ...said } = status;
    const text = JSON.stringify(said);
    if (last.get(key) === text) continue;
    await writeStatus(l, row.name, status);
    last.set(key, text);
  }
  for (const key of last.keys()) if (!seen.has(key)) last.delete(key);
}

async function statusOf(db: Queryable, row: Row): Promise<WatchStatus> {
  const base = { file: row.name, run_id: row.run_id, updated_at: new Date().toISOString() };
  const children: string[] = typeof row.children === "string" ? JSON.parse(row.children) : (row.children ?? []);
  if (row.state === "rendering" && children.length) {
    const { rows: kids } = await db.query<{ state: string; progress: number; eta_at: string | Date | null }>(
      `select state, progress, eta_at from runs where id = any($1::uuid[])`,
      [children],
    );
    const pct = kids.reduce((a, k) => a + Number(k.progress), 0) / Math.max(1, kids.length);
    const etas = kids.map((k) => etaSeconds(k)).filter((e): e is number => e !== null);
    const done = kids.filter((k) => k.state === "succeeded" || k.state === "failed" || k.state === "cancelled").length;
    return {
      ...base,
      phase: "rendering",
      stage: "rendering clips",
      percent: Math.round(pct * 10) / 10,
      note: `${done} of ${kids.length} clips rendered`,
      eta_seconds: etas.length ? Math.max(...etas) : null,
    };
  }
  return {
    ...base,
    phase: row.run_state === "queued" ? "queued" : "processing",
    stage: row.stage,
    percent: Number(row.progress),
    note: row.note,
    eta_seconds: etaSeconds({ state: row.run_state, eta_at: row.eta_at }),
  };
}
