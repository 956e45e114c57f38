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
 * Over 250 lines: take, recover, sweep and settle share the row and file ordering rules above and
 * this class's busy/sweeping state; the parts without that state already live beside it.
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import chokidar, { type FSWatcher } from "chokidar";
import type { Logger } from "pino";
import { parse as parseYaml } from "yaml";
import type { ClipdApp } from "../boot/app.js";
import { checkRenderTop, FOLLOWUP_KEYS, splitOptions, startClipRenders } from "./followups.js";
import { placeOutbox, outboxName } from "./outbox.js";
import { eventsFor } from "./results.js";
import { TERMINAL, type Run } from "../engine/runner.js";
import { faultPoint } from "../ops/faults.js";
import { WATCH_RUN_ENDED } from "./run-ends.js";
import { folderLayout, freeName, moveToFailed, type FolderLayout } from "./layout.js";
import { removeStaleStatus, removeStatus, StatusFiles } from "./status.js";

/** The fallback sweep, for a run-end notification lost with a dropped listening connection. */
const SAFETY_SWEEP_MS = 10_000;
const IGNORED = /(^\.|\.(ya?ml|part|partial|crdownload|tmp|download|error\.txt|status\.json)$)/i;

interface WatchRow {
  id: string;
  folder: string;
  name: string;
  state: string;
  run_id: string | null;
  children: string[] | string | null;
}

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

  constructor(private readonly app: ClipdApp) {
    this.layouts = app.config.watch.folders.map((f) => folderLayout(app.config.data_dir, f));
    this.log = app.log.child({ role: "watch" });
    this.status = new StatusFiles(app.db, this.layouts, this.log);
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
        if (!rows.length) await this.begin(l, name);
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
      await this.begin(l, name);
    } finally {
      this.busy.delete(file);
    }
  }

  private async readSidecar(l: FolderLayout, name: string): Promise<Record<string, unknown>> {
    const file = path.join(l.processing, `${name}.yaml`);
    if (!existsSync(file)) return {};
    const doc = parseYaml(await readFile(file, "utf8"));
    if (doc == null) return {};
    if (typeof doc !== "object" || Array.isArray(doc))
      throw new Error(`sidecar ${name}.yaml must be a mapping of option: value`);
    return doc as Record<string, unknown>;
  }

  /**
   * The id of a take, from the file itself (folder, name, size, times, inode): a take cut short by
   * a crash after the copy into storage and before its row is begun again at the restart under
   * the same id, so it overwrites its own copy instead of leaving one under no row. A new file
   * that happens to match a finished row's id (a reused inode) gets a fresh one.
   */
  private async takeId(
    l: FolderLayout,
    name: string,
    st: { size: number; mtimeMs: number; ctimeMs: number; ino: number },
  ): Promise<string> {
    const h = createHash("sha256")
      .update([l.inbox, name, st.size, st.mtimeMs, st.ctimeMs, st.ino].join("\0"))
      .digest("hex");
    const id = `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
    const { rows } = await this.app.db.query(`select 1 from watch_files where id = $1`, [id]);
    return rows.length ? randomUUID() : id;
  }

  private async begin(l: FolderLayout, name: string): Promise<void> {
    const src = path.join(l.processing, name);
    const st = await stat(src);
    const id = await this.takeId(l, name, st);
    const log = this.log.child({ file: name, pipeline: l.pipeline });
    let set: Record<string, unknown>;
    try {
      // Refuse bad options before anything is stored; the renders' share is read again at settle.
      const sidecar = await this.readSidecar(l, name);
      checkRenderTop(sidecar.render_top);
      set = splitOptions(this.app.runner, l.pipeline, withoutKeys(sidecar, FOLLOWUP_KEYS)).run;
    } catch (err) {
      await this.app.db.query(
        `insert into watch_files (id, folder, name, size, mtime_ms, state, error) ` +
          `values ($1, $2, $3, $4, $5, 'failed', $6)`,
        [id, l.inbox, name, st.size, st.mtimeMs, (err as Error).message],
      );
      await this.fail(l, name, { code: "invalid_options", message: (err as Error).message });
      return;
    }
    const key = `uploads/watch/${id}/${name}`;
    await this.app.storage.putFile(key, src);
    await this.app.db.transaction(async (tx) => {
      const account = this.app.config.watch.account_id ? { account_id: this.app.config.watch.account_id } : {};
      const run = await this.app.runner.startRun(
        l.pipeline,
        { upload: { key, name }, options: set, ...account },
        { origin: "watch", originRef: name, set, tx },
      );
      await tx.query(
        `insert into watch_files (id, folder, name, size, mtime_ms, state, run_id) ` +
          `values ($1, $2, $3, $4, $5, 'running', $6)`,
        [id, l.inbox, name, st.size, st.mtimeMs, run.id],
      );
      log.info({ runId: run.id }, "file taken");
    });
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
        await this.settle(l, row).catch((err) => this.log.error({ err, file: row.name }, "could not settle file"));
      }
    } finally {
      this.sweeping = false;
    }
    if (this.again) return this.sweep();
  }

  private async settle(l: FolderLayout, row: WatchRow): Promise<void> {
    const run = await this.app.runner.getRun(row.run_id!);
    if (!run || !TERMINAL.has(run.state)) return;
    if (run.state !== "succeeded") {
      await this.fail(l, row.name, {
        ...(run.error ?? { code: run.state, message: `run ${run.state}` }),
        run_id: run.id,
      });
      await this.app.db.query(`update watch_files set state = 'failed', error = $2, updated_at = now() where id = $1`, [
        row.id,
        run.error?.message ?? run.state,
      ]);
      return;
    }
    let children = childrenOf(row);
    if (row.state === "running") {
      const sidecar = await this.readSidecar(l, row.name).catch(() => ({}) as Record<string, unknown>);
      const top = Number(sidecar.render_top ?? this.app.config.render.render_top);
      let renders: Record<string, unknown>;
      try {
        ({ renders } = splitOptions(this.app.runner, l.pipeline, withoutKeys(sidecar, FOLLOWUP_KEYS)));
      } catch (err) {
        // The pipelines changed under a file in flight: it fails visibly rather than waiting forever.
        const message = `the sidecar's render options no longer fit the pipelines: ${(err as Error).message}`;
        await this.fail(l, row.name, { code: "bad_options", message, run_id: run.id });
        await this.app.db.query(
          `update watch_files set state = 'failed', error = $2, updated_at = now() where id = $1`,
          [row.id, message],
        );
        return;
      }
      children = await this.startRenders(row, run, top, renders);
    }
    const kids = (await Promise.all(children.map((c) => this.app.runner.getRun(c)))).filter((r): r is Run => !!r);
    if (kids.some((k) => !TERMINAL.has(k.state))) return;
    const outName = await outboxName(this.app.db, l.outbox, row, row.name.replace(/\.[^.]+$/, ""));
    const events = await eventsFor(this.app.db, [run.id, ...kids.map((k) => k.id)]);
    await placeOutbox({
      storage: this.app.storage,
      outbox: l.outbox,
      name: outName,
      rowId: row.id,
      source: path.join(l.processing, row.name),
      run,
      kids,
      events,
    });
    faultPoint("watch:outbox-written");
    await rm(path.join(l.processing, `${row.name}.yaml`), { force: true });
    await removeStatus(l, row.name);
    await this.app.db.query(`update watch_files set state = 'done', updated_at = now() where id = $1`, [row.id]);
    this.log.info(
      { file: row.name, outbox: outName, clips: kids.length, events: events.map((e) => e.type) },
      "results written",
    );
  }

  /**
   * Starts the clip renders and records them on the row in one transaction. Committed apart, a
   * crash between the two left renders the row did not know of, and the next sweep started them
   * all again (every clip rendered, and clip.ready sent, twice). The row is locked, so a sweep
   * that finds it already rendering takes the recorded renders instead.
   */
  private async startRenders(
    row: WatchRow,
    run: Run,
    top: number,
    renders: Record<string, unknown>,
  ): Promise<string[]> {
    return this.app.db.transaction(async (tx) => {
      const { rows } = await tx.query<WatchRow>(`select state, children from watch_files where id = $1 for update`, [
        row.id,
      ]);
      if (rows[0] && rows[0].state !== "running") return childrenOf(rows[0]);
      const ids = await startClipRenders(this.app.runner, run, top, {
        origin: "watch",
        originRef: row.name,
        set: renders,
        tx,
      });
      faultPoint("watch:renders-started");
      await tx.query(`update watch_files set state = 'rendering', children = $2, updated_at = now() where id = $1`, [
        row.id,
        JSON.stringify(ids),
      ]);
      return ids;
    });
  }

  private async fail(l: FolderLayout, name: string, error: Record<string, unknown>): Promise<void> {
    await moveToFailed(l, name, error);
    await removeStatus(l, name);
    this.log.warn({ file: name, code: error.code }, "file failed");
  }
}

function childrenOf(row: Pick<WatchRow, "children">): string[] {
  return typeof row.children === "string" ? JSON.parse(row.children) : (row.children ?? []);
}

function withoutKeys(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
}
