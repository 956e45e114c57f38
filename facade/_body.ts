/**
 * Reading a JSON request body under a byte cap (server.max_json_bytes). The cap holds before the
 * body is read in full: a declared Content-Length over it is refused without reading a byte, and a
 * chunked body is counted while it streams and dropped at the cap, so a 200 MB body is never
 * buffered. Only JSON is taken: another declared type is 415. Raw-byte routes (PUT uploads) have
 * no JSON body schema and never come here.
 */
import { ApiError } from "./errors.js";

export const JSON_TYPE = "application/json";

/** True when the request says it carries body bytes (a positive Content-Length, or chunked). */
export function requestHasBody(req: Request): boolean {
  const declared = req.headers.get("content-length");
  if (declared !== null) return Number(declared) !== 0;
  return req.headers.has("transfer-encoding");
}

/** The media type of Content-Type, lower case, without parameters ("" when absent). */
export function mediaType(req: Request): string {
  return (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The next chunk of a request body; a body that breaks off is a 400 saying how far it came. */
export async function nextChunk(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  bytes: number,
  code: string,
  what: string,
) {
  try {
    return await reader.read();
  } catch (cause) {
    throw new ApiError(
      400,
      code,
      `${what} broke off after ${bytes} bytes; send it again`,
      { field: "body", bytes },
      { cause },
    );
  }
}

const tooLarge = (max: number, bytes?: number) =>
  new ApiError(413, "body_too_large", `the request body is larger than the limit of ${max} bytes of JSON`, {
    max_bytes: max,
    ...(bytes !== undefined ? { bytes } : {}),
  });

/**
 * The parsed body, or undefined when it is empty. Throws 415 for a declared type other than JSON
 * (a body without Content-Type is read as JSON, the only kind this API takes), 413 over the cap and
 * 400 for bytes that are not JSON.
 */
export async function readJsonBody(req: Request, maxBytes: number): Promise<unknown> {
  if (!requestHasBody(req)) return undefined;
  const type = mediaType(req);
  if (type && type !== JSON_TYPE) {
    throw new ApiError(
      415,
      "unsupported_media_type",
      `request bodies must be JSON: send Content-Type: ${JSON_TYPE} (got ${type})`,
      {
        field: "Content-Type",
        content_type: type,
        supported: [JSON_TYPE],
      },
    );
  }
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes, declared);
  if (!req.body) return undefined;
  // A declared length within the cap is all the server will read (HTTP framing holds it to that),
  // so it is read in one go; only a chunked body is counted as it streams.
  const raw = Number.isFinite(declared)
    ? new Uint8Array(await readDeclared(req, declared))
    : await readCounted(req.body, maxBytes);
  if (raw.byteLength === 0) return undefined;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
  } catch (cause) {
    throw new ApiError(400, "invalid_json", "the request body is not valid UTF-8 JSON", { field: "body" }, { cause });
  }
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new ApiError(
      400,
      "invalid_json",
      `the request body is not valid JSON: ${(cause as Error).message}`,
      { field: "body" },
      { cause },
    );
  }
}

async function readDeclared(req: Request, declared: number): Promise<ArrayBuffer> {
  try {
    return await req.arrayBuffer();
  } catch (cause) {
    throw new ApiError(
      400,
      "body_interrupted",
      `the request body broke off before its ${declared} bytes; send it again`,
      { field: "body", bytes: declared },
      { cause },
    );
  }
}

/**
 * Reads a chunked body by hand: stopping at the cap releases the stream without destroying the
 * request, so the 413 still reaches the client (the caller answers with Connection: close).
 */
async function readCounted(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const next = await nextChunk(reader, bytes, "body_interrupted", "the request body");
      if (next.done) break;
      bytes += next.value.byteLength;
      if (bytes > maxBytes) throw tooLarge(maxBytes);
      chunks.push(next.value);
    }
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks, bytes);
}

/**
 * Reads and drops what a refused client is still sending, for at most LINGER_MS or LINGER_BYTES,
 * then lets the connection go. Closing at once would leave unread bytes behind, and the reset that
 * follows can wipe the refusal from the client's buffer before it is read (a lingering close, as
 * web servers do it).
 */
const LINGER_MS = 2000;
const LINGER_BYTES = 16 * 1024 * 1024;
export function lingerOver(req: Request): void {
  if (!req.body) return;
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = req.body.getReader();
  } catch {
    return; // the body is already being read elsewhere
  }
  const deadline = Date.now() + LINGER_MS;
  const timer = setTimeout(() => void reader.cancel().catch(() => {}), LINGER_MS);
  void (async () => {
    let bytes = 0;
    try {
      while (Date.now() < deadline && bytes < LINGER_BYTES) {
        const next = await reader.read();
        if (next.done) break;
        bytes += next.value.byteLength;
      }
    } catch {
      // the client went away: nothing left to drop
    } finally {
      clearTimeout(timer);
      await reader.cancel().catch(() => {});
    }
  })();
}
