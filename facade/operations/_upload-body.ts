/**
 * What a whole PUT and a chunk PUT to an upload address share (files.ts, upload-chunks.ts): the
 * check of the first bytes against the file name, the refusals, and reading a request body into a
 * storage stream by hand, counting bytes, with never more than one network chunk in memory.
 */
import type { Writable } from "node:stream";
import { MEDIA_FORMATS, sniffMedia, SNIFF_BYTES } from "../../daemon/domain/media-types.js";
import { nextChunk } from "../_body.js";
import { ApiError, toErrorBody } from "../errors.js";

function refuseType(ext: string, seen: string): ApiError {
  return new ApiError(
    415,
    "unsupported_type",
    `the uploaded bytes are not a ${ext || "media"} file (they look like ${seen}); upload the file the name says`,
    {
      extension: ext || null,
      detected: seen,
    },
  );
}

/**
 * Checks the first bytes against the file name's extension. An upload named without one takes
 * any bytes here; POST /episodes/{id}/uploaded finds their type from the stored file.
 */
export function judgeHead(head: Buffer, ext: string): ApiError | undefined {
  if (!ext) return undefined;
  const sniff = sniffMedia(head);
  if (sniff.kind === "html") return refuseType(ext, "a web page");
  if (sniff.kind === "text") return refuseType(ext, "text");
  if (sniff.kind === "unknown") return refuseType(ext, "an unknown binary format");
  const allowed = MEDIA_FORMATS[ext]?.containers;
  if (!allowed)
    return new ApiError(415, "unsupported_type", `files of type ${ext || "(none)"} are not accepted`, {
      extension: ext || null,
    });
  if (!allowed.includes(sniff.format)) return refuseType(ext, `${sniff.format} (${sniff.ext})`);
  return undefined;
}

export function errorResponse(err: unknown, extra: Record<string, string> = {}): Response {
  const { status, body } = toErrorBody(err);
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...extra } });
}

export const tooBig = (max: number, bytes?: number) =>
  new ApiError(413, "too_big", `the upload is larger than the limit of ${max} bytes`, {
    max_bytes: max,
    ...(bytes !== undefined ? { bytes } : {}),
  });

/** Writes to a stream, waiting for it to drain; both listeners go once either fires. */
async function write(out: Writable, chunk: Buffer): Promise<void> {
  if (out.write(chunk)) return;
  await new Promise<void>((resolve, reject) => {
    const done = (err?: Error) => {
      out.off("drain", done).off("error", done);
      if (err) reject(err);
      else resolve();
    };
    out.on("drain", done).on("error", done);
  });
}

export interface Pumped {
  /** Bytes read from the request. */
  bytes: number;
  /** Bytes handed to `out` (fewer than read while the first bytes wait for their check). */
  written: number;
  /** Set when the body broke off (the connection dropped); what was written stays good. */
  interrupted?: ApiError;
}

/**
 * Reads `body` into `out` (which it does not end). `limit` bytes at most: the next byte throws
 * `overLimit()`. With `sniff`, the first SNIFF_BYTES wait and are judged against the extension
 * before anything is written; a body shorter than that is judged at its end when `judgeShort`,
 * else written unjudged (a first chunk: the joined file is judged when it is whole).
 */
export async function pumpBody(
  body: ReadableStream<Uint8Array>,
  out: Writable,
  opts: { limit: number; overLimit: () => ApiError; sniff?: { ext: string; judgeShort: boolean } },
): Promise<Pumped> {
  // Read by hand rather than through stream.pipeline: a refusal must stop reading without
  // destroying the request, so the error answer still reaches the client (Connection: close).
  const reader = body.getReader();
  let bytes = 0;
  let written = 0;
  let head: Buffer | undefined = opts.sniff ? Buffer.alloc(0) : undefined;
  const put = async (chunk: Buffer) => {
    await write(out, chunk);
    written += chunk.length;
  };
  try {
    for (;;) {
      let next;
      try {
        next = await nextChunk(reader, bytes, "upload_interrupted", "the upload");
      } catch (err) {
        return { bytes, written, interrupted: err as ApiError };
      }
      if (next.done) break;
      let chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
      bytes += chunk.length;
      if (bytes > opts.limit) throw opts.overLimit();
      if (head) {
        head = Buffer.concat([head, chunk]);
        if (head.length < SNIFF_BYTES) continue;
        const refusal = judgeHead(head, opts.sniff!.ext);
        if (refusal) throw refusal;
        chunk = head;
        head = undefined;
      }
      await put(chunk);
    }
    if (head?.length) {
      if (opts.sniff!.judgeShort) {
        const refusal = judgeHead(head, opts.sniff!.ext);
        if (refusal) throw refusal;
      }
      await put(head);
    }
    return { bytes, written };
  } finally {
    reader.releaseLock();
  }
}
