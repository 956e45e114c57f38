// Reading a brand file's upload (the raw body under the kind's cap, or a `?url=` link) and how an
// upload call is described in OpenAPI (its raw body and answers). Separate from the operations in
// brand-uploads.ts: the body handling is its own concern.
import { maxBytesOf, tooBig, type BrandFileKind } from "../../daemon/brand/files.js";
import { lingerOver, nextChunk, requestHasBody } from "../_body.js";
import { ApiError } from "../errors.js";
import type { OperationContext } from "../registry.js";
import { errorResponse } from "./_upload-body.js";
import { K } from "./_brand-schemas.js";

/**
 * The file of an upload call: fetched from `?url=`, else the request's raw body read under the
 * kind's cap (a declared Content-Length over it is refused before a byte is read).
 */
type From = { bytes?: Buffer; url?: string };
/** An upload call's context: its query may name the file's `url` (K.fileQuery, K.fontQuery). */
type UploadContext = OperationContext<unknown, { url?: string }>;

/**
 * Runs an upload: `before` (the kit or episode must be the caller's: a 404 comes before a byte is
 * read), the file, then `save`. Refused before the body was read whole, the answer closes the
 * connection (after a short linger, so the client reads the refusal first) rather than leave
 * unread bytes on a kept-alive socket.
 */
export async function upload(
  ctx: UploadContext,
  kind: BrandFileKind,
  before: () => Promise<unknown>,
  save: (from: From) => Promise<unknown>,
): Promise<unknown> {
  let from: From;
  try {
    await before();
    from = await readFile(ctx, kind);
  } catch (err) {
    const req = ctx.caller.request;
    if (!req || !requestHasBody(req)) throw err;
    lingerOver(req);
    return errorResponse(err, { connection: "close" });
  }
  return save(from);
}

async function readFile(ctx: UploadContext, kind: BrandFileKind): Promise<From> {
  const url = ctx.query.url;
  if (url !== undefined) return { url };
  const req = ctx.caller.request;
  const noBody = () =>
    new ApiError(
      400,
      "invalid_request",
      `send the ${kind} file as the request body, or give its https link in the query field "url"`,
      { field: "body" },
    );
  if (!req?.body) throw noBody();
  const max = maxBytesOf(kind, ctx.services.config.brand);
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > max) throw tooBig(kind, max, declared);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (
      let next = await nextChunk(reader, 0, "upload_interrupted", `the ${kind} file`);
      !next.done;
      next = await nextChunk(reader, bytes, "upload_interrupted", `the ${kind} file`)
    ) {
      bytes += next.value.byteLength;
      if (bytes > max) throw tooBig(kind, max, bytes);
      chunks.push(next.value);
    }
  } finally {
    reader.releaseLock();
  }
  if (!bytes) throw noBody();
  return { bytes: Buffer.concat(chunks, bytes) };
}

export const uploadResponses = (what: string) => ({
  200: { description: `The kit with its new ${what}`, schema: K.kit },
  400: {
    description:
      `unsupported_type: the bytes are not a ${what} clipd takes (the message ` +
      `says what they are); fetch_failed or invalid_url: the link; naming the field`,
  },
  404: { description: "Not on this account" },
  413: { description: `too_big: the ${what} is over its limit (max_bytes)` },
});

const rawBody = (what: string, mediaTypes: string[]) => ({
  description:
    `The ${what} file's bytes (any Content-Type: the bytes decide; leave the ` +
    `body empty when the query names a url)`,
  mediaTypes: [...mediaTypes, "application/octet-stream"],
});
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp"];
export const RAW: Record<BrandFileKind, ReturnType<typeof rawBody>> = {
  font: rawBody("font (TTF or OTF)", ["font/ttf", "font/otf"]),
  logo: rawBody("logo (PNG or SVG)", ["image/png", "image/svg+xml"]),
  cover: rawBody("cover art (PNG, JPEG or WebP)", IMAGE_TYPES),
};
