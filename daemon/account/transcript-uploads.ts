/**
 * Transcripts of uploaded files, ordered through the website: the page asks for an upload address
 * (the row in web_uploads holds the transcript id to be), PUTs the file, then says it is there.
 * Starting goes through TranscriptService.order like a transcript of a link: the same free
 * allowance and billing, the same pipeline (fetch-source checks the stored file instead of
 * downloading), the same events. Only the duplicate check differs: every upload is its own
 * transcript (`url` is `upload:<id>`).
 */
import { extensionOf } from "../domain/media-types.js";
import { Conflict, NotFound } from "../domain/errors.js";
import type { Storage } from "../storage/storage.js";
import type { Db, Within } from "../store/db.js";
import { findWebUpload, markStarted, recordWebUpload } from "../web/uploads.js";
import type { AccountSurface } from "./surfaces.js";
import type { Ordered, TranscriptService } from "./transcripts.js";

export interface TranscriptUploadDeps {
  db: Db;
  storage: Storage;
  transcripts: TranscriptService;
}

/** The transcript's name: the file name without its extension. */
export function nameFromFile(fileName: string): string {
  const ext = extensionOf(fileName);
  return (ext ? fileName.slice(0, -ext.length) : fileName).trim().slice(0, 200) || "transcript";
}

/** Remembers an upload address handed out for the transcript `id` to be. */
export function recordTranscriptUpload(
  deps: TranscriptUploadDeps,
  u: { id: string; accountId: string; key: string; fileName: string; expiresAt: string },
): Promise<void> {
  return recordWebUpload(deps.db, {
    id: u.id,
    kind: "transcript",
    account_id: u.accountId,
    free_key_id: null,
    client_addr: null,
    token_fp: null,
    storage_key: u.key,
    name: u.fileName,
    expires_at: u.expiresAt,
  });
}

/**
 * Starts the transcript of an uploaded file. A repeat answers the transcript already made. Throws
 * NotFound for another account's id, Conflict upload_missing before the file is stored, and the
 * refusals of TranscriptService.order (PaymentRequired when a paid one cannot start).
 */
export async function startTranscriptUpload(
  deps: TranscriptUploadDeps,
  input: { accountId: string; id: string; origin: AccountSurface },
  within?: Within<Ordered>,
): Promise<Ordered> {
  const made = await deps.transcripts.get(input.accountId, input.id);
  if (made) {
    const again = { transcript: made, created: false };
    if (within) await deps.db.transaction((tx) => within(tx, again));
    return again;
  }
  const upload = await findWebUpload(deps.db, "transcript", input.id);
  if (!upload || upload.account_id !== input.accountId)
    throw new NotFound("not_found", `no upload ${input.id} on this account`, { context: { field: "id" } });
  const size = await deps.storage.size(upload.storage_key).catch(() => 0);
  if (size === 0)
    throw new Conflict(
      "upload_missing",
      `no file was uploaded for transcript ${input.id} yet; PUT it to the upload url first`,
      { context: { field: "id" } },
    );
  const name = upload.storage_key.split("/").pop()!;
  return deps.transcripts.order(
    {
      accountId: input.accountId,
      id: input.id,
      url: `upload:${input.id}`,
      name: nameFromFile(upload.name),
      origin: input.origin,
      upload: { key: upload.storage_key, name },
    },
    async (tx, ordered) => {
      await markStarted(tx, input.id);
      await within?.(tx, ordered);
    },
  );
}
