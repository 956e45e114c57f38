/**
 * Free transcriptions of uploaded files, from the website's free page: the page asks for an upload
 * address (POST /web/api/v1/free/uploads), PUTs the file, then says it is there (…/uploaded).
 * The same tiers, limits, codes and budget as the free API's links (docs/free-api.md):
 *
 * - Asking for the address already refuses a caller whose files of the day are used, or a spent
 *   budget, so nobody uploads for nothing; the address caps the bytes at free.max_bytes.
 * - Once uploaded, the file is measured whole with ffprobe before anything is counted or spent. A
 *   file too long for the tier (or unreadable) is refused with its numbers and its bytes deleted;
 *   so is one refused by the daily limits or the budget, which FreeService.admit judges again in
 *   its transaction.
 * - An admitted job's audio is the uploaded file: free.audio_retention_days later the retention
 *   job deletes it, as it deletes downloaded audio.
 */
import { createHash } from "node:crypto";
import { DomainError, NotFound, Conflict, Refused } from "../domain/errors.js";
import type { Storage } from "../storage/storage.js";
import type { Db } from "../store/db.js";
import { dropWebUpload, findWebUpload, markStarted, recordWebUpload } from "../web/uploads.js";
import { checkMeasure } from "./admission.js";
import { measureStored, ProbeRefusal } from "./probe.js";
import type { FreeService } from "./service.js";

export interface FreeUploadDeps {
  db: Db;
  storage: Storage;
  free: FreeService;
}

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

/** Checks the caller's allowance, then remembers the address handed out for the job `id` to be. */
export async function recordFreeUpload(
  deps: FreeUploadDeps,
  u: {
    id: string;
    token: string;
    keyId: string | null;
    clientAddr: string;
    key: string;
    fileName: string;
    expiresAt: string;
  },
): Promise<void> {
  await deps.free.precheck({ keyId: u.keyId, clientAddr: u.clientAddr });
  await recordWebUpload(deps.db, {
    id: u.id,
    kind: "free",
    account_id: null,
    free_key_id: u.keyId,
    client_addr: u.clientAddr,
    token_fp: sha(u.token),
    storage_key: u.key,
    name: u.fileName,
    expires_at: u.expiresAt,
  });
}

/**
 * Measures the uploaded file and starts its job. A repeat once started answers the same job.
 * Throws NotFound for an unknown id, Conflict upload_missing before the file is stored, and the
 * free tool's refusals (Refused unreadable, LimitReached too_long / too_long_anon / too_big /
 * daily limits / ceilings), after deleting the file.
 */
export async function startFreeUpload(
  deps: FreeUploadDeps,
  id: string,
): Promise<{ id: string; started: boolean; duration_seconds?: number }> {
  const upload = await findWebUpload(deps.db, "free", id);
  if (!upload) throw new NotFound("not_found", `no free upload ${id}`, { context: { field: "id" } });
  if (upload.started_at) return { id, started: false };
  const key = upload.storage_key;
  const size = await deps.storage.size(key).catch(() => 0);
  if (size === 0)
    throw new Conflict("upload_missing", `no file was uploaded for ${id} yet; PUT it to the upload url first`, {
      context: { field: "id" },
    });
  const cfg = deps.free.cfg;
  const refuse = async (err: unknown): Promise<never> => {
    await deps.storage.remove(key).catch(() => undefined);
    await dropWebUpload(deps.db, id);
    throw err;
  };
  const anon = upload.free_key_id === null;
  let m;
  try {
    m = await measureStored(deps.storage, key);
  } catch (err) {
    return refuse(
      err instanceof ProbeRefusal
        ? new Refused("unreadable", err.message, { context: { field: "file" }, cause: err })
        : err,
    );
  }
  try {
    checkMeasure(cfg, m, anon);
    await deps.free.admit({
      id,
      tokenFp: upload.token_fp!,
      url: `upload:${upload.name}`,
      m,
      keyId: upload.free_key_id,
      clientAddr: upload.client_addr!,
      source: { upload: { key, name: key.split("/").pop()! } },
      audioKey: key,
      // Taken once: a second /uploaded that raced this one finds the row started and stops here.
      claim: async (tx) => {
        const row = await findWebUpload(tx, "free", id, { lock: true });
        if (!row || row.started_at) throw new Conflict("already_started", "started by another request");
        await markStarted(tx, id);
      },
    });
    return { id, started: true, ...(m.measured ? { duration_seconds: m.duration_seconds! } : {}) };
  } catch (err) {
    if (err instanceof Conflict && err.code === "already_started") return { id, started: false };
    if (err instanceof DomainError) return refuse(err);
    throw err;
  }
}
