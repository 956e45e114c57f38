/**
 * An upload address closes when its upload is reported done (POST …/uploaded): from then on a PUT
 * to it, whole-file or chunked, is 409 upload_closed, so a late PUT never replaces the file an
 * import is already reading. Closed uploads are rows of `closed_uploads` by the `ref` the signed
 * address carries, written in the transaction that starts the work where there is one. The
 * address itself is signed and cannot be changed, hence a row and not a claim.
 */
import type { Queryable } from "../daemon/store/db.js";
import { ApiError } from "./errors.js";

/** Closes the upload `ref`; clears rows older than a day (every address they could close has expired). */
export async function closeUpload(q: Queryable, ref: string): Promise<void> {
  await q.query(`delete from closed_uploads where closed_at < now() - interval '1 day'`);
  await q.query(`insert into closed_uploads (ref) values ($1) on conflict (ref) do nothing`, [ref]);
}

export async function isUploadClosed(q: Queryable, ref: string | undefined): Promise<boolean> {
  if (!ref) return false;
  const { rows } = await q.query(`select 1 from closed_uploads where ref = $1`, [ref]);
  return rows.length > 0;
}

export function uploadClosed(): ApiError {
  return new ApiError(
    409,
    "upload_closed",
    "this upload address is closed: the upload was reported done (…/uploaded); " +
      "ask for a new address to send another file",
    { field: "token" },
  );
}
