/**
 * The signed-link routes: PUT /api/v1/uploads/{token} and GET /api/v1/files/{token}. The token is
 * the authorisation (facade/signing.ts), so these take no API key and count against no key's rate
 * limit.
 *
 * Uploads stream from the request to a temporary storage file, counting bytes on the way: never
 * more than one chunk is in memory, the size cap holds whether or not a Content-Length was sent,
 * and the first bytes must be the kind of media the file name says. Only a complete, accepted file
 * is renamed to its key; anything refused leaves no file behind. A PUT with Content-Range is one
 * chunk of a resumable upload (upload-chunks.ts).
 *
 * Downloads stream from storage and honour a single HTTP byte range (206), so players can seek.
 */
import { randomUUID } from "node:crypto";
import { Readable, Writable } from "node:stream";
import { Type } from "@sinclair/typebox";
import { extensionOf } from "../../daemon/domain/media-types.js";
import { ApiError, toErrorBody } from "../errors.js";
import { defineOperation, type Operation } from "../registry.js";
import { contentTypeFor } from "../uploads.js";
import { getMe } from "./me.js";
import { abandonStream } from "../../daemon/storage/storage.js";
import { diskFullOr, InsufficientStorage } from "../../daemon/storage/disk-full.js";
import { errorResponse, pumpBody, tooBig } from "./_upload-body.js";
import { parseContentRange, putChunk } from "./upload-chunks.js";
import { isUploadClosed, uploadClosed } from "../upload-closed.js";

/** These two operations are HTTP by nature (raw bytes, Range); the adapter hands them the request. */
function httpRequest(caller: { request?: Request }): Request {
  if (!caller.request) throw new ApiError(400, "http_only", "signed uploads and downloads are served over HTTP only");
  return caller.request;
}

const tokenParam = Type.String({ minLength: 1, maxLength: 4096, description: "The signed token from the link" });

export const putUpload = defineOperation({
  id: "putUpload",
  method: "PUT",
  path: "/api/v1/uploads/{token}",
  summary:
    "Uploads the file for a signed upload address: the raw file streamed whole, " +
    "or one chunk of it with Content-Range (HEAD the address for Upload-Offset)",
  scope: null,
  rateLimited: false,
  tags: ["files"],
  params: { token: tokenParam },
  responses: {
    200: {
      description:
        "Stored: the whole file ({key, bytes}), or a chunk ({received, total, complete}, " +
        "with key and bytes once complete)",
      schema: {
        type: "object",
        properties: {
          key: { type: "string" },
          bytes: { type: "integer" },
          received: { type: "integer", description: "Bytes stored so far (chunks)" },
          total: { type: "integer" },
          complete: { type: "boolean" },
        },
      },
    },
    400: {
      description:
        "Empty or interrupted upload (a chunk says the offset stored), or a Content-Range " +
        "that does not fit (bad_content_range)",
    },
    403: { description: "The address was changed or not issued by clipd" },
    410: { description: "The address expired (2 hours)" },
    409: {
      description:
        "A chunk that does not start where the stored bytes end (upload_offset_mismatch, " +
        "offset), or names another total (upload_total_changed, total); or the upload was " +
        "reported done already and the address is closed (upload_closed)",
    },
    413: {
      description:
        "Larger than the cap; the body carries max_bytes (a chunk over 64 MiB: chunk_too_big, max_chunk_bytes)",
    },
    415: { description: "The bytes are not the media type the file name says" },
    507: {
      description:
        "The server's disk is full (insufficient_storage, limit: disk_space); nothing was kept, try again later",
    },
  },
  async handler({ params, services, caller }) {
    const event = { req: httpRequest(caller) };
    const claims = services.signer.verify(params.token, "upload");
    const max = claims.max ?? Number.MAX_SAFE_INTEGER;
    const ext = claims.type ?? extensionOf(claims.key);
    let range;
    try {
      range = parseContentRange(event.req.headers.get("content-range"));
    } catch (err) {
      return errorResponse(err, { connection: "close" });
    }
    // Closed once the upload was reported done: a late PUT must not replace what the import reads.
    if (!claims.test && (await isUploadClosed(services.db, claims.ref)))
      return errorResponse(uploadClosed(), { connection: "close" });
    if (range) return putChunk(services, event.req, claims, range);
    // Refusing before reading: Connection: close so the client need not send the rest.
    const declared = Number(event.req.headers.get("content-length") ?? NaN);
    if (Number.isFinite(declared) && declared > max)
      return errorResponse(tooBig(max, declared), { connection: "close" });
    const body = event.req.body;
    if (!body || declared === 0)
      throw new ApiError(400, "empty_upload", "the upload is empty; send the file as the request body", {
        field: "body",
      });

    const part = `${claims.key}.${randomUUID().slice(0, 8)}.part`;
    // A test-mode address checks and counts the bytes but keeps none of them.
    const out = claims.test
      ? new Writable({ write: (_chunk, _enc, done) => done() })
      : await services.storage.writeStream(part);
    let bytes: number;
    try {
      const pumped = await pumpBody(body as ReadableStream<Uint8Array>, out, {
        limit: max,
        overLimit: () => tooBig(max),
        sniff: { ext, judgeShort: true },
      });
      if (pumped.interrupted) throw pumped.interrupted;
      bytes = pumped.bytes;
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    } catch (err) {
      // Wait for the file to be opened and closed, or the removal could run before it exists.
      await abandonStream(out);
      await services.storage.remove(part).catch(() => undefined);
      // A full disk is 507 insufficient_storage, answered like a refusal: the rest is not read.
      const said = diskFullOr(err, "the upload");
      if (said instanceof ApiError || said instanceof InsufficientStorage)
        return errorResponse(said, { connection: "close" });
      throw err;
    }
    if (bytes === 0) {
      await services.storage.remove(part).catch(() => undefined);
      throw new ApiError(400, "empty_upload", "the upload is empty; send the file as the request body", {
        field: "body",
      });
    }
    if (claims.test) return { key: claims.key, bytes, livemode: false };
    // Checked again now the bytes are in: /uploaded may have come while they were on the way.
    if (await isUploadClosed(services.db, claims.ref)) {
      await services.storage.remove(part).catch(() => undefined);
      throw uploadClosed();
    }
    await services.storage.move(part, claims.key).catch(async (err) => {
      await services.storage.remove(part).catch(() => undefined);
      throw diskFullOr(err, "the upload");
    });
    // A whole file replaces any chunks a page had begun to send to this address.
    await services.storage.parts.remove(claims.key).catch(() => undefined);
    services.log.info({ key: claims.key, bytes, ref: claims.ref }, "upload stored");
    return { key: claims.key, bytes };
  },
});

/** Parses a Range header against a file size: a range, "none" (serve it all) or "unsatisfiable". */
export function parseRange(
  header: string | null,
  size: number,
): { start: number; end: number } | "none" | "unsatisfiable" {
  if (!header) return "none";
  const m = /^\s*bytes\s*=\s*(.+)$/i.exec(header);
  if (!m) return "none"; // another unit: ignored, as RFC 9110 allows
  const specs = m[1]!.split(",").map((s) => s.trim());
  if (specs.length > 1) return "none"; // multipart ranges are not offered; the whole file is a valid answer
  const r = /^(\d*)-(\d*)$/.exec(specs[0]!);
  if (!r || (r[1] === "" && r[2] === "")) return "unsatisfiable";
  if (r[1] === "") {
    const suffix = Number(r[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(r[1]);
  const end = r[2] === "" ? size - 1 : Math.min(Number(r[2]), size - 1);
  if (start >= size || end < start) return "unsatisfiable";
  return { start, end };
}

/** Content-Disposition with an ASCII fallback and the UTF-8 name (RFC 6266 / 5987). */
export function contentDisposition(name: string, inline: boolean): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${inline ? "inline" : "attachment"}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export const getFile = defineOperation({
  id: "getFile",
  method: "GET",
  path: "/api/v1/files/{token}",
  summary: "Downloads a file behind a signed link (7 days); supports HTTP Range",
  scope: null,
  rateLimited: false,
  tags: ["files"],
  params: { token: tokenParam },
  responses: {
    200: { description: "The whole file" },
    302: {
      description: "With media on an object store: a short-lived presigned link to the file there (Range works on it)",
    },
    206: { description: "The requested byte range, with Content-Range" },
    403: { description: "The link was changed or not issued by clipd" },
    404: { description: "The file is not there (yet)" },
    410: { description: "The link expired" },
    416: { description: "The range is not satisfiable; Content-Range gives the size" },
  },
  async handler({ params, services, caller }) {
    const event = { req: httpRequest(caller) };
    const claims = services.signer.verify(params.token, "download");
    const name = claims.name || claims.key.split("/").pop()!;
    let size: number;
    try {
      // Any failure (a missing file, a folder, a key that is not valid) is the same 404.
      size = (await services.storage.stat(claims.key)).size;
    } catch (cause) {
      throw new ApiError(
        404,
        "not_found",
        `${name} is not available (yet); if it is still being made, try again later`,
        {},
        { cause },
      );
    }
    const type = claims.type || contentTypeFor(name);
    const inline = /^(audio|video|image)\/|^text\/html/.test(type);
    // On an object store the bytes come straight from it: a fresh presigned GET behind this
    // long-lived, revocable link (docs/scaling.md). HTML stays here, under its sandboxing CSP.
    const redirect =
      services.config.storage.kind === "s3" &&
      services.config.storage.s3.downloads === "redirect" &&
      !/^text\/html/.test(type);
    if (redirect && services.storage.presignGet) {
      const seconds = services.config.storage.s3.presign_seconds;
      const url = await services.storage.presignGet(claims.key, {
        seconds,
        type,
        disposition: contentDisposition(name, inline),
      });
      return new Response(null, {
        status: 302,
        headers: { location: url, "cache-control": `private, max-age=${Math.max(0, seconds - 60)}` },
      });
    }
    const headers = new Headers({
      "content-type": type,
      "content-disposition": contentDisposition(name, inline),
      "accept-ranges": "bytes",
      "cache-control": "private, max-age=3600",
      "x-content-type-options": "nosniff",
      // Files are data, never an app: a served page may show itself but run nothing.
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    });
    const range = parseRange(event.req.headers.get("range"), size);
    if (range === "unsatisfiable") {
      headers.set("content-range", `bytes */${size}`);
      headers.set("content-type", "application/json");
      headers.delete("content-disposition");
      const { body } = toErrorBody(
        new ApiError(
          416,
          "range_not_satisfiable",
          `the range ${event.req.headers.get("range")} is outside the file (${size} bytes)`,
          { size },
        ),
      );
      return new Response(JSON.stringify(body), { status: 416, headers });
    }
    const { start, end } = range === "none" ? { start: 0, end: size - 1 } : range;
    headers.set("content-length", String(Math.max(0, end - start + 1)));
    if (range !== "none") headers.set("content-range", `bytes ${start}-${end}/${size}`);
    const stream =
      size === 0 ? null : (Readable.toWeb(services.storage.readStream(claims.key, { start, end })) as ReadableStream);
    return new Response(stream, { status: range === "none" ? 200 : 206, headers });
  },
});

export const FILE_OPERATIONS: Operation[] = [putUpload, getFile, getMe];
