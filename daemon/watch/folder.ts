/**
 * The watch folder. A file dropped in a watched folder enters its pipeline; results land in
 * outbox/<name>/, failures in failed/ with <name>.error.txt.
 *
 * Guarantees:
 * - A file is taken only once it has stopped growing (chokidar's awaitWriteFinish).
 * - Taking a file is one rename into processing/; the run for it and its watch_files row are
 *   created in one transaction. A file is never processed twice: once out of the inbox it is not
 *   seen again, and a file left in processing/ by a crash is matched to its row, or started, at the
 *   next start.
 * - A crash inside a take repeats it under the same id (takeId), so no stored copy is orphaned.
 * - A crash after the run repeats no work: the clip renders are started and recorded on the row in
 *   one transaction, and the outbox folder's name is recorded before it is written (outbox.ts).
 * - Nothing is dropped silently: every file ends in outbox/ or failed/ with a reason. A file that
 *   fails keeps its sidecar beside it in failed/, so both can be fixed and dropped in again.
 * - A sidecar's options are split between the run and its clip renders (followups.ts), and a
 *   bad one (YAML, an unknown option, a refused value) fails the file before anything runs.
 * - While a file is in processing/, `<name>.status.json` beside it shows its progress (status.ts).
 *
 * The start of a file (begin.ts) and the end of its run (settle.ts) live beside this class; it
 * keeps what needs its state: the watchers, the takes in flight and the one sweep at a time.
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, rename, stat } from "node:fs/promises";
import path from "node:path";
import chokidar, { type FSWatcher } from "chokidar";
import type { Logger } from "pino";
import type { ClipdApp } from "../boot/app.js";
import { WATCH_RUN_ENDED } from "./run-ends.js";
import { folderLayout, freeName, type FolderLayout } from "./layout.js";
import { removeStaleStatus, StatusFiles } from "./status.js";
import { beginFile, type WatchContext } from "./begin.js";
import { settleFile, type WatchRow } from "./settle.js";

/** The fallback sweep, for a run-end notification lost with a dropped listening connection. */
const SAFETY_SWEEP_MS = 10_000;
const IGNORED = /(^\.|\.(ya?ml|part|partial|crdownload|tmp|download|error\.txt|status\.json)$)/i;

export class WatchFolder {
  private watchers: FSWatcher[] = [];
  private timer?: NodeJS.Timeout;
  private busy = new Set<string>();
  private sweeping = false;
  private again = false;
  private unlisten?: () => Promise<void>;
  private readonly layouts: FolderLayout[];
  private readonly log: Logger;
  private readonly status: StatusFiles;
  private readonly ctx: WatchContext;

  constructor(private readonly app: ClipdApp) {
    this.layouts = app.config.watch.folders.map((f) => folderLayout(app.config.data_dir, f));
    this.log = app.log.child({ role: "watch" });
    this.status = new StatusFiles(app.db, this.layouts, this.log);
    this.ctx = { app, log: this.log };
  }

  async start(): Promise<void> {
    for (const l of this.layouts) {
      if (!this.app.pipelines.has(l.pipeline))
        throw new Error(`watch folder ${l.inbox} names unknown pipeline "${l.pipeline}"`);
      for (const d of [l.inbox, l.processing, l.outbox, l.failed]) await mkdir(d, { recursive: true });
    }
    await this.recover();
    for (const l of this.layouts) {
      const w = chokidar.watch(l.inbox, {
        depth: 0,
        ignoreInitial: false,
        ignored: (p: string) => p !== l.inbox && IGNORED.test(path.basename(p)),
        awaitWriteFinish: { stabilityThreshold: this.app.config.watch.stable_ms, pollInterval: 100 },
      });
      w.on(
        "add",
        (file) =>
          void this.take(l, file).catch((err) =>
            this.log.error({ err, file: path.basename(file) }, "could not take file"),
          ),
      );
      w.on("error", (err) => this.log.error({ err }, "watcher error"));
      this.watchers.push(w);
      await new Promise<void>((resolve) => w.once("ready", () => resolve()));
      this.log.info({ folder: l.inbox, pipeline: l.pipeline }, "watching folder");
    }
    // Run ends wake the sweep (run-ends.ts); the slow timer only covers a notification lost with a
    // dropped listening connection. Without LISTEN support the timer is all there is.
    this.unlisten = await this.app.db.listen?.(WATCH_RUN_ENDED, () => void this.sweep());
    this.timer = setInterval(() => void this.sweep(), this.unlisten ? SAFETY_SWEEP_MS : 500);
    void this.sweep();
    this.status.start(() => this.sweeping);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.status.stop();
    await this.unlisten?.().catch(() => undefined);
    await Promise.all(this.watchers.map((w) => w.close()));
    this.watchers = [];
  }

  /** Files left in processing/ by a crash get a run if they have none; the sweep finishes the rest. */
  private async recover(): Promise<void> {
    for (const l of this.layouts) {
      await removeStaleStatus(l);
      for (const name of await readdir(l.processing)) {
        if (IGNORED.test(name)) continue;
        const { rows } = await this.app.db.query(
          `select id from watch_files where folder = $1 and name = $2 and state <> 'done' and state <> 'failed'`,
          [l.inbox, name],
        );
        if (!rows.length) await beginFile(this.ctx, l, name);
      }
    }
  }

  private async take(l: FolderLayout, file: string): Promise<void> {
    const original = path.basename(file);
    if (IGNORED.test(original) || this.busy.has(file)) return;
    this.busy.add(file);
    try {
      const st = await stat(file).catch(() => undefined);
      if (!st?.isFile()) return;
      const name = await freeName(l.processing, original);
      // A sidecar travels with its file, and goes first: a kill between the two renames then leaves
      // the file in the inbox, taken again at the restart with its sidecar already in place.
      for (const side of [`${original}.yaml`, `${original.replace(/\.[^.]+$/, "")}.yaml`]) {
        if (existsSync(path.join(l.inbox, side)))
          await rename(path.join(l.inbox, side), path.join(l.processing, `${name}.yaml`));
      }
      await rename(file, path.join(l.processing, name));
      await beginFile(this.ctx, l, name);
    } finally {
      this.busy.delete(file);
    }
  }

  /** Moves finished work to outbox/ or failed/. */
  private async sweep(): Promise<void> {
    // A wake-up during a sweep is not dropped: the sweep runs once more when this one ends.
    if (this.sweeping) {
      this.again = true;
      return;
    }
    this.sweeping = true;
    this.again = false;
    try {
      await this.status.idle();
      const { rows } = await this.app.db.query<WatchRow>(
        `select * from watch_files where state in ('running', 'rendering') order by created_at`,
      );
      for (const row of rows) {
        const l = this.layouts.find((x) => x.inbox === row.folder);
        if (!l || !row.run_id) continue;
        await settleFile(this.ctx, l, row).catch((err) =>
          this.log.error({ err, file: row.name }, "could not settle file"),
        );
      }
    } finally {
      this.sweeping = false;
    }
    if (this.again) return this.sweep();
  }
}
