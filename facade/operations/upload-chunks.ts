/**
 * Chunked PUTs to an upload address, so a page whose connection drops goes on where it stopped
 * (docs/website.md, "Uploads that survive a dropped connection"). A PUT with
 * `Content-Range: bytes a-b/total` adds one chunk; `HEAD` on the address says how far it got.
 *
 * Guarantees:
 * - Chunks collect as parts in storage (daemon/storage/storage-parts.ts), each placed whole and at most
 *   once per offset: two PUTs racing for one offset cannot both land, in one process or in several
 *   sharing the storage folder, so the file is never interleaved. No lock is held or left behind.
 * - A chunk cut off mid-way keeps the bytes that arrived (they are the file's, in order); a
 *   process killed mid-chunk leaves only a temporary file, which no offset counts.
 * - The first chunk's total is noted with the parts, with the link's expiry (the sweeper removes
 *   parts whose link expired); every later chunk must name the same total, within the link's cap.
 * - The chunk that completes the file joins the parts, checks the whole as a whole PUT would and
 *   only then renames it to the key. A HEAD that finds every part stored but not joined (the
 *   server stopped in between) finishes the file first.
 * - A test-mode address (test keys) stores nothing: chunks are checked and counted, not kept.
 */
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import type { H3 } from "h3";
import { getRouterParams } from "h3";
import { extensionOf, SNIFF_BYTES } from "../../daemon/domain/media-types.js";
import { abandonStream } from "../../daemon/storage/storage.js";
import { contiguousEnd } from "../../daemon/storage/storage-parts.js";
import { diskFullOr, InsufficientStorage } from "../../daemon/storage/disk-full.js";
import { ApiError, toErrorBody } from "../errors.js";
import type { FacadeServices } from "../services.js";
import type { LinkClaims } from "../signing.js";
import { errorResponse, judgeHead, pumpBody, tooBig } from "./_upload-body.js";
import { isUploadClosed, uploadClosed } from "../upload-closed.js";

/** Largest chunk one PUT may carry (64 MiB). */
export const MAX_CHUNK_BYTES = 64 * 1024 * 1024;

export interface ChunkRange {
  first: number;
  last: number;
  total: number;
}

/** What is noted with the parts of an upload: its total and when its link expires. */
export interface UploadNote {
  total: number;
  expires_at: string;
}

const badRange = (message: string) => new ApiError(400, "bad_content_range", message, { field: "Content-Range" });

/** The chunk a Content-Range names, or undefined without the header (a whole PUT). */
export function parseContentRange(header: string | null): ChunkRange | undefined {
  if (header === null) return undefined;
  const m = /^\s*bytes\s+(\d{1,16})-(\d{1,16})\/(\d{1,16})\s*$/i.exec(header);
  if (!m) throw badRange(`Content-Range must read "bytes <first>-<last>/<total>" (got "${header.slice(0, 80)}")`);
  const [first, last, total] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (last < first || last >= total)
    throw badRange(`Content-Range ${first}-${last}/${total} is not a range inside the file`);
  return { first, last, total };
}

type Services = Pick<FacadeServices, "storage" | "log" | "db">;

/** How far the upload behind `claims` got: the stored offset and, once known, the total. */
async function progressOf(s: Services, key: string): Promise<{ offset: number; total?: number; partial: boolean }> {
  const [parts, note] = await Promise.all([s.storage.parts.list(key), s.storage.parts.readNote(key)]);
  if (parts.length || note)
    return {
      offset: contiguousEnd(parts),
      total: note ? (JSON.parse(note) as UploadNote).total : undefined,
      partial: true,
    };
  const size = await s.storage.size(key).catch(() => undefined);
  return size === undefined ? { offset: 0, partial: false } : { offset: size, total: size, partial: false };
}

/** Joins the parts into the key once they hold `total` bytes, checked as a whole PUT is. */
async function finish(s: Services, claims: LinkClaims, total: number): Promise<void> {
  const key = claims.key;
  const temp = `${key}.${randomUUID().slice(0, 8)}.part`;
  try {
    await s.storage.parts.join(key, temp);
    const size = await s.storage.size(temp);
    if (size !== total)
      throw new ApiError(409, "upload_offset_mismatch", `the stored chunks hold ${size} of ${total} bytes`, {
        offset: size,
      });
    const refusal = judgeHead(await s.storage.readHead(temp, SNIFF_BYTES), claims.type ?? extensionOf(key));
    if (refusal) {
      await s.storage.parts.remove(key);
      throw refusal;
    }
    await s.storage.move(temp, key);
  } catch (err) {
    await s.storage.remove(temp).catch(() => undefined);
    // Another request finished it first: its parts are gone and the file is there.
    if (!(err instanceof ApiError) && (await s.storage.exists(key)) && !(await s.storage.parts.list(key)).length)
      return;
    throw diskFullOr(err, "the upload");
  }
  await s.storage.parts.remove(key);
  s.log.info({ key, bytes: total, ref: claims.ref, chunked: true }, "upload stored");
}

const mismatch = (offset: number) =>
  new ApiError(
    409,
    "upload_offset_mismatch",
    `the upload holds ${offset} bytes; send the chunk that starts at byte ${offset} (HEAD the address to ask)`,
    { offset },
  );

/** A chunk PUT: `range` from Content-Range, `claims` from the verified token. */
export async function putChunk(
  s: Services,
  req: Request,
  claims: LinkClaims,
  range: ChunkRange,
): Promise<Response | Record<string, unknown>> {
  const max = claims.max ?? Number.MAX_SAFE_INTEGER;
  const size = range.last - range.first + 1;
  const close = { connection: "close" };
  if (range.total > max) return errorResponse(tooBig(max, range.total), close);
  if (size > MAX_CHUNK_BYTES) {
    return errorResponse(
      new ApiError(413, "chunk_too_big", `a chunk may carry ${MAX_CHUNK_BYTES} bytes at most; this one is ${size}`, {
        max_chunk_bytes: MAX_CHUNK_BYTES,
        bytes: size,
      }),
      close,
    );
  }
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared !== size)
    return errorResponse(badRange(`Content-Length ${declared} is not the ${size} bytes Content-Range names`), close);
  if (!req.body)
    throw new ApiError(400, "empty_upload", "the chunk is empty; send its bytes as the request body", {
      field: "body",
    });
  const ext = claims.type ?? extensionOf(claims.key);
  const complete = range.last + 1 === range.total;
  const sniff = range.first === 0 ? { ext, judgeShort: complete } : undefined;
  const overLimit = () => badRange(`the body is longer than the ${size} bytes Content-Range names`);

  if (claims.test) {
    const sink = new Writable({ write: (_c, _e, done) => done() });
    const pumped = await pumpBody(req.body, sink, { limit: size, overLimit, ...(sniff ? { sniff } : {}) }).catch(
      (err) => err as ApiError,
    );
    if (pumped instanceof Error) return errorResponse(pumped, close);
    if (pumped.interrupted) throw pumped.interrupted;
    if (pumped.bytes < size) throw badRange(`the body held ${pumped.bytes} of the ${size} bytes Content-Range names`);
    return {
      received: range.last + 1,
      total: range.total,
      complete,
      ...(complete ? { key: claims.key, bytes: range.total } : {}),
      livemode: false,
    };
  }

  const note = JSON.parse(
    await s.storage.parts.claimNote(
      claims.key,
      JSON.stringify({
        total: range.total,
        expires_at: new Date(claims.exp * 1000).toISOString(),
      } satisfies UploadNote),
    ),
  ) as UploadNote;
  if (note.total !== range.total) {
    return errorResponse(
      new ApiError(
        409,
        "upload_total_changed",
        `this upload is ${note.total} bytes long, as its first chunk said; a chunk may not change it (${range.total})`,
        { total: note.total },
      ),
      close,
    );
  }
  const before = contiguousEnd(await s.storage.parts.list(claims.key));
  // a server stopped between the last chunk and the join
  if (before === note.total) await finish(s, claims, note.total);
  if (range.first !== before) return errorResponse(mismatch(before), { ...close, "upload-offset": String(before) });

  const writer = await s.storage.parts.writer(claims.key, range.first);
  let pumped;
  try {
    pumped = await pumpBody(req.body, writer.stream, { limit: size, overLimit, ...(sniff ? { sniff } : {}) });
    await new Promise<void>((resolve, reject) =>
      writer.stream.end((err?: Error | null) => (err ? reject(err) : resolve())),
    );
  } catch (err) {
    await abandonStream(writer.stream);
    await writer.discard();
    const said = diskFullOr(err, "the upload");
    if (said instanceof ApiError || said instanceof InsufficientStorage) return errorResponse(said, close);
    throw err;
  }
  // A chunk that broke off keeps what arrived: the page asks HEAD and sends the rest.
  if (pumped.written === 0) await writer.discard();
  else if (!(await writer.commit())) {
    const now = contiguousEnd(await s.storage.parts.list(claims.key));
    return errorResponse(mismatch(now), { "upload-offset": String(now) });
  }
  const received = range.first + pumped.written;
  if (pumped.interrupted || pumped.bytes < size) {
    throw new ApiError(
      400,
      "upload_interrupted",
      `the chunk broke off after ${pumped.bytes} of its ${size} bytes; ${received} ` +
        `bytes are stored, send the rest from there`,
      { field: "body", offset: received },
    );
  }
  if (!complete) return { received, total: range.total, complete: false };
  // The last chunk joins the file under its key: not once the upload was reported done.
  if (await isUploadClosed(s.db, claims.ref)) throw uploadClosed();
  await finish(s, claims, range.total);
  return { key: claims.key, bytes: range.total, received, total: range.total, complete: true };
}

/** HEAD on an upload address: Upload-Offset (bytes stored) and Upload-Length (the total, once known). */
export async function headUpload(s: FacadeServices, token: string): Promise<Response> {
  const headers = new Headers({ "cache-control": "no-store" });
  try {
    const claims = s.signer.verify(token, "upload");
    if (claims.test) {
      // A test-mode address keeps nothing, so nothing is ever stored to resume from.
      headers.set("upload-offset", "0");
      return new Response(null, { status: 200, headers });
    }
    let at = await progressOf(s, claims.key);
    if (at.partial && at.total !== undefined && at.offset === at.total) {
      await finish(s, claims, at.total);
      at = await progressOf(s, claims.key);
    }
    headers.set("upload-offset", String(at.offset));
    if (at.total !== undefined) headers.set("upload-length", String(at.total));
    return new Response(null, { status: 200, headers });
  } catch (err) {
    // A HEAD answer has no body: the status and the error code header say what went wrong.
    const { status, body } = toErrorBody(err);
    if (status >= 500) s.log.error({ err }, "upload HEAD failed");
    headers.set("x-error-code", String((body as { error?: { code?: string } } | undefined)?.error?.code ?? "error"));
    return new Response(null, { status, headers });
  }
}

/** Routes HEAD /api/v1/uploads/{token} (HTTP only: no operation, no tool, no JSON body). */
export function mountUploadHead(app: H3, services: FacadeServices): void {
  app.on("HEAD", "/api/v1/uploads/:token", (event) =>
    headUpload(services, String(getRouterParams(event)?.token ?? "")),
  );
}

/** The route mountUploadHead adds, for the app's list of owned paths. */
export const UPLOAD_HEAD_ROUTE = { method: "HEAD", path: "/api/v1/uploads/{token}" };
