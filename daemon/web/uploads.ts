/**
 * The uploads the website hands out before any work exists (table web_uploads, migration 018): a
 * transcript of an uploaded file (daemon/account/transcript-uploads.ts) and a free transcription
 * from the free page (daemon/free/uploads.ts). The row remembers whose upload it is and where its
 * bytes go until the page says the file is there; its id becomes the transcript's or the free
 * job's, so the page follows one id throughout.
 *
 * A row whose work never started is removed with its file once its link has expired (a day
 * later, so a page that just finished still gets to say so); sweepWebUploads runs in the free
 * tool's daily retention job.
 */
import type { Logger } from "pino";
import type { Storage } from "../storage/storage.js";
import type { Db, Queryable } from "../store/db.js";
import { isoColumn } from "../store/_columns.js";

export type WebUploadKind = "transcript" | "free";

export interface WebUpload {
  id: string;
  kind: WebUploadKind;
  account_id: string | null;
  free_key_id: string | null;
  client_addr: string | null;
  token_fp: string | null;
  storage_key: string;
  name: string;
  expires_at: string;
  started_at: string | null;
}

export async function recordWebUpload(q: Queryable, u: Omit<WebUpload, "started_at">): Promise<void> {
  await q.query(
    `insert into web_uploads (id, kind, account_id, free_key_id, client_addr, ` +
      `token_fp, storage_key, name, expires_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [u.id, u.kind, u.account_id, u.free_key_id, u.client_addr, u.token_fp, u.storage_key, u.name, u.expires_at],
  );
}

/** The upload of `kind` with this id; `lock` holds its row to the end of the transaction. */
export async function findWebUpload(
  q: Queryable,
  kind: WebUploadKind,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<WebUpload | undefined> {
  const { rows } = await q.query(
    `select * from web_uploads where id = $1 and kind = $2${opts.lock ? " for update" : ""}`,
    [id, kind],
  );
  const r = rows[0];
  return r && { ...r, expires_at: isoColumn(r.expires_at)!, started_at: isoColumn(r.started_at) };
}

export async function markStarted(q: Queryable, id: string): Promise<void> {
  await q.query(`update web_uploads set started_at = now() where id = $1`, [id]);
}

/** Forgets an upload that was refused; its bytes are the caller's to delete. */
export async function dropWebUpload(q: Queryable, id: string): Promise<void> {
  await q.query(`delete from web_uploads where id = $1`, [id]);
}

/**
 * Removes uploads whose link expired more than a day ago (the clock moved by `offsetSeconds`, as
 * the free retention's is): the file of one never started, and every such row. A started
 * upload's file belongs to its work now (a free job's audio is the retention's; a transcript's
 * goes with its account). Idempotent.
 */
export async function sweepWebUploads(
  deps: { db: Db; storage: Storage; log: Logger },
  offsetSeconds = 0,
): Promise<number> {
  const { rows } = await deps.db.query(
    `select id, storage_key, started_at from web_uploads where expires_at < ` +
      `now() + make_interval(secs => $1) - interval '1 day' limit 1000`,
    [offsetSeconds],
  );
  for (const r of rows) {
    if (!r.started_at) {
      await deps.storage.remove(r.storage_key).catch(() => undefined);
      await deps.storage.parts.remove(r.storage_key).catch(() => undefined);
    }
    await deps.db.query(`delete from web_uploads where id = $1`, [r.id]);
  }
  if (rows.length) deps.log.info({ uploads: rows.length }, "website uploads past their link: removed");
  return rows.length;
}
