/**
 * A watch file's outbox folder, written so that a crash at any point leaves exactly one folder.
 *
 * The name is chosen once and recorded on the watch_files row before anything is written (it used
 * to be chosen afresh at each attempt, so a restart left outbox/<name>/, sometimes empty, beside
 * outbox/<name>-2/). The results go into a hidden temporary folder tied to the row,
 * outbox/.<name>.tmp-<row id>, and one rename puts it in place. After a crash the recorded name is
 * found again: a folder already in place is complete (the rename is atomic); a temporary one is
 * written again over what it holds and then renamed.
 */
import { existsSync } from "node:fs";
import { rename } from "node:fs/promises";
import path from "node:path";
import type { Run } from "../engine/runner.js";
import { faultPoint } from "../ops/faults.js";
import type { Storage } from "../storage/storage.js";
import type { Queryable } from "../store/db.js";
import { writeResults, type EventRow } from "./results.js";

/** The row's outbox name: the recorded one, else the first free `<stem>`, `<stem>-2`, … recorded now. */
export async function outboxName(
  db: Queryable,
  outbox: string,
  row: { id: string; folder: string },
  stem: string,
): Promise<string> {
  const recorded = async () =>
    (await db.query<{ outbox: string | null }>(`select outbox from watch_files where id = $1`, [row.id])).rows[0]
      ?.outbox ?? null;
  const had = await recorded();
  if (had) return had;
  for (let i = 1; ; i++) {
    const candidate = i === 1 ? stem : `${stem}-${i}`;
    if (existsSync(path.join(outbox, candidate))) continue;
    // A name another file in flight has recorded is taken, though its folder is not there yet.
    const { rows } = await db.query(
      `select 1 from watch_files where folder = $1 and outbox = $2 and id <> $3 and state in ('running', 'rendering')`,
      [row.folder, candidate, row.id],
    );
    if (rows.length) continue;
    await db.query(`update watch_files set outbox = $2, updated_at = now() where id = $1 and outbox is null`, [
      row.id,
      candidate,
    ]);
    return (await recorded()) ?? candidate;
  }
}

/** The temporary folder the row's results are written in before they are renamed into place. */
export function outboxTemp(outbox: string, name: string, rowId: string): string {
  return path.join(outbox, `.${name}.tmp-${rowId}`);
}

export interface OutboxWrite {
  storage: Storage;
  outbox: string;
  name: string;
  rowId: string;
  /** The dropped file, moved in beside its results. */
  source: string;
  run: Run;
  kids: Run[];
  events: EventRow[];
}

/**
 * Writes the results into the temporary folder and renames it to outbox/<name>; a folder already there is left as it
 * is.
 */
export async function placeOutbox(w: OutboxWrite): Promise<void> {
  const final = path.join(w.outbox, w.name);
  if (existsSync(final)) return;
  const tmp = outboxTemp(w.outbox, w.name, w.rowId);
  await writeResults(w.storage, w.run, tmp, w.kids, w.events);
  faultPoint("watch:outbox-partial");
  // An earlier attempt may have moved the file in already: then it is in tmp, not in processing/.
  await rename(w.source, path.join(tmp, path.basename(w.source))).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "ENOENT") throw err;
  });
  await rename(tmp, final);
}
