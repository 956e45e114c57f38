/**
 * Settling a watched file whose run has ended: a failed run fails the file; a succeeded one starts
 * its clip renders (recorded on the row in the same transaction) and, once they have all ended,
 * writes the outbox folder and marks the row done. Kept apart from the WatchFolder class, whose
 * sweep calls it for each running row, because none of it touches the class's state.
 */
import { rm } from "node:fs/promises";
import path from "node:path";
import { FOLLOWUP_KEYS, splitOptions, startClipRenders } from "./followups.js";
import { placeOutbox, outboxName } from "./outbox.js";
import { eventsFor } from "./results.js";
import { TERMINAL, type Run } from "../engine/runner.js";
import { faultPoint } from "../ops/faults.js";
import type { FolderLayout } from "./layout.js";
import { removeStatus } from "./status.js";
import { failFile, readSidecar, withoutKeys, type WatchContext } from "./begin.js";

export interface WatchRow {
  id: string;
  folder: string;
  name: string;
  state: string;
  run_id: string | null;
  children: string[] | string | null;
}

export async function settleFile(ctx: WatchContext, l: FolderLayout, row: WatchRow): Promise<void> {
  const { app } = ctx;
  const run = await app.runner.getRun(row.run_id!);
  if (!run || !TERMINAL.has(run.state)) return;
  if (run.state !== "succeeded") {
    await failFile(ctx, l, row.name, {
      ...(run.error ?? { code: run.state, message: `run ${run.state}` }),
      run_id: run.id,
    });
    await app.db.query(`update watch_files set state = 'failed', error = $2, updated_at = now() where id = $1`, [
      row.id,
      run.error?.message ?? run.state,
    ]);
    return;
  }
  let children = childrenOf(row);
  if (row.state === "running") {
    const sidecar = await readSidecar(l, row.name).catch(() => ({}) as Record<string, unknown>);
    const top = Number(sidecar.render_top ?? app.config.render.render_top);
    let renders: Record<string, unknown>;
    try {
      ({ renders } = splitOptions(app.runner, l.pipeline, withoutKeys(sidecar, FOLLOWUP_KEYS)));
    } catch (err) {
      // The pipelines changed under a file in flight: it fails visibly rather than waiting forever.
      const message = `the sidecar's render options no longer fit the pipelines: ${(err as Error).message}`;
      await failFile(ctx, l, row.name, { code: "bad_options", message, run_id: run.id });
      await app.db.query(`update watch_files set state = 'failed', error = $2, updated_at = now() where id = $1`, [
        row.id,
        message,
      ]);
      return;
    }
    children = await startRenders(ctx, row, run, top, renders);
  }
  const kids = (await Promise.all(children.map((c) => app.runner.getRun(c)))).filter((r): r is Run => !!r);
  if (kids.some((k) => !TERMINAL.has(k.state))) return;
  const outName = await outboxName(app.db, l.outbox, row, row.name.replace(/\.[^.]+$/, ""));
  const events = await eventsFor(app.db, [run.id, ...kids.map((k) => k.id)]);
  await placeOutbox({
    storage: app.storage,
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
  await app.db.query(`update watch_files set state = 'done', updated_at = now() where id = $1`, [row.id]);
  ctx.log.info(
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
async function startRenders(
  ctx: WatchContext,
  row: WatchRow,
  run: Run,
  top: number,
  renders: Record<string, unknown>,
): Promise<string[]> {
  return ctx.app.db.transaction(async (tx) => {
    const { rows } = await tx.query<WatchRow>(`select state, children from watch_files where id = $1 for update`, [
      row.id,
    ]);
    if (rows[0] && rows[0].state !== "running") return childrenOf(rows[0]);
    const ids = await startClipRenders(ctx.app.runner, run, top, {
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

function childrenOf(row: Pick<WatchRow, "children">): string[] {
  return typeof row.children === "string" ? JSON.parse(row.children) : (row.children ?? []);
}
