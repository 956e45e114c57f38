/**
 * Beginning a file taken into processing/: its sidecar read and checked, the take's id, the stored
 * copy, then its run and watch_files row in one transaction; and failing a file (moved to failed/
 * with its reason), which both the start and the settling of a file do. Kept apart from the
 * WatchFolder class because none of it touches the class's busy/sweeping state.
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import { parse as parseYaml } from "yaml";
import type { ClipdApp } from "../boot/app.js";
import { checkRenderTop, FOLLOWUP_KEYS, splitOptions } from "./followups.js";
import { moveToFailed, type FolderLayout } from "./layout.js";
import { removeStatus } from "./status.js";

/** What the watch folder's parts share: the app and the watch role's logger. */
export interface WatchContext {
  app: ClipdApp;
  log: Logger;
}

export async function readSidecar(l: FolderLayout, name: string): Promise<Record<string, unknown>> {
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
async function takeId(
  ctx: WatchContext,
  l: FolderLayout,
  name: string,
  st: { size: number; mtimeMs: number; ctimeMs: number; ino: number },
): Promise<string> {
  const h = createHash("sha256")
    .update([l.inbox, name, st.size, st.mtimeMs, st.ctimeMs, st.ino].join("\0"))
    .digest("hex");
  const id = `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  const { rows } = await ctx.app.db.query(`select 1 from watch_files where id = $1`, [id]);
  return rows.length ? randomUUID() : id;
}

export async function beginFile(ctx: WatchContext, l: FolderLayout, name: string): Promise<void> {
  const { app } = ctx;
  const src = path.join(l.processing, name);
  const st = await stat(src);
  const id = await takeId(ctx, l, name, st);
  const log = ctx.log.child({ file: name, pipeline: l.pipeline });
  let set: Record<string, unknown>;
  try {
    // Refuse bad options before anything is stored; the renders' share is read again at settle.
    const sidecar = await readSidecar(l, name);
    checkRenderTop(sidecar.render_top);
    set = splitOptions(app.runner, l.pipeline, withoutKeys(sidecar, FOLLOWUP_KEYS)).run;
  } catch (err) {
    await app.db.query(
      `insert into watch_files (id, folder, name, size, mtime_ms, state, error) ` +
        `values ($1, $2, $3, $4, $5, 'failed', $6)`,
      [id, l.inbox, name, st.size, st.mtimeMs, (err as Error).message],
    );
    await failFile(ctx, l, name, { code: "invalid_options", message: (err as Error).message });
    return;
  }
  const key = `uploads/watch/${id}/${name}`;
  await app.storage.putFile(key, src);
  await app.db.transaction(async (tx) => {
    const account = app.config.watch.account_id ? { account_id: app.config.watch.account_id } : {};
    const run = await app.runner.startRun(
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

export async function failFile(
  ctx: WatchContext,
  l: FolderLayout,
  name: string,
  error: Record<string, unknown>,
): Promise<void> {
  await moveToFailed(l, name, error);
  await removeStatus(l, name);
  ctx.log.warn({ file: name, code: error.code }, "file failed");
}

export function withoutKeys(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
}
