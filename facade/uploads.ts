/**
 * Upload addresses and download links handed out by the account API. Both are signed links served
 * by clipd itself (facade/operations/files.ts): an upload address stays valid for 2 hours and
 * carries the size cap and the storage key the PUT will write; a download link stays valid for
 * 7 days and carries the key, the file name offered to the browser and the content type.
 *
 * Links are absolute. The base is `server.public_url` when set (the address clients see behind a
 * proxy); otherwise the `origin` the caller passes, normally `requestOrigin(ctx.event)`, the origin
 * of the request that asked for the link. With neither, the link is a root-relative path.
 */
import type { H3Event } from "h3";
import { extensionOf, kindOfExtension, MEDIA_EXTENSIONS, MEDIA_FORMATS } from "../daemon/domain/media-types.js";
import { ApiError } from "./errors.js";
import type { FacadeServices } from "./services.js";
import { DOWNLOAD_TTL_SECONDS, UPLOAD_TTL_SECONDS } from "./signing.js";

/** What uploadLink and downloadLink need: the config (public_url) and the signer. */
export type LinkServices = Pick<FacadeServices, "config" | "signer">;

export interface UploadLink {
  method: "PUT";
  url: string;
  headers: Record<string, string>;
  expires_at: string;
  /** Storage key the PUT writes. */
  key: string;
}

export interface DownloadLink {
  url: string;
  expires_at: string;
}

const CONTENT_TYPES: Record<string, string> = {
  ...Object.fromEntries(Object.entries(MEDIA_FORMATS).map(([ext, f]) => [ext, f.type])),
  ".txt": "text/plain; charset=utf-8",
  ".srt": "application/x-subrip; charset=utf-8",
  ".vtt": "text/vtt; charset=utf-8",
  ".json": "application/json",
  ".html": "text/html; charset=utf-8",
  ".png": "image/png",
  ".jpg": "image/jpeg",
};

/** The Content-Type clipd serves for a file name, by its extension. */
export function contentTypeFor(name: string): string {
  return CONTENT_TYPES[extensionOf(name)] ?? "application/octet-stream";
}

/** The origin ("https://host:port") of the request, honouring X-Forwarded-* only as h3 does. */
export function requestOrigin(event: H3Event): string {
  return new URL(event.req.url).origin;
}

/** Absolute base for links: server.public_url, else the given origin, else "" (relative links). */
export function linkBase(config: LinkServices["config"], origin?: string): string {
  return (config.server.public_url || origin || "").replace(/\/+$/, "");
}

/**
 * A file name safe as the last part of a storage key and in headers: letters, digits, dot, dash
 * and underscore; no leading dots; at most 120 characters, keeping the extension.
 */
export function sanitiseFileName(name: string): string {
  const base = (name.split(/[\\/]/).pop() ?? "").normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  const ext = extensionOf(base);
  let stem = (ext ? base.slice(0, -ext.length) : base)
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .replace(/^[._]+/, "")
    .replace(/_+$/, "");
  if (!stem) stem = "file";
  if (stem.length > 120 - ext.length) stem = stem.slice(0, 120 - ext.length);
  return stem + ext.replace(/[^a-z0-9.]/g, "");
}

/**
 * Refuses a file name whose extension clipd does not take (400 unsupported_type naming it).
 * `field` names the request field the name came from.
 */
export function assertMediaFileName(fileName: string, field = "file_name"): void {
  const ext = extensionOf(fileName);
  if (!kindOfExtension(ext)) {
    throw new ApiError(
      400,
      "unsupported_type",
      ext
        ? `${field}: files of type ${ext} are not accepted; use one of ${MEDIA_EXTENSIONS.join(" ")}`
        : `${field}: "${fileName}" has no file extension; use one of ${MEDIA_EXTENSIONS.join(" ")}`,
      { field, extension: ext || null, accepted: MEDIA_EXTENSIONS },
    );
  }
}

/**
 * A signed PUT address for one file. The key is `uploads/<accountId>/<ref>/<sanitised file name>`;
 * `ref` is the caller's id for what the upload belongs to (an episode id) and comes back in the
 * token's claims. Throws 400 unsupported_type for a name that is not an accepted media file.
 * Without a file name the key ends in `upload` and any bytes are taken: their type is found from
 * the stored file when the upload is reported done. A `test` address (test keys) checks what is
 * sent and stores nothing.
 */
export function uploadLink(
  services: LinkServices,
  opts: { accountId: string; ref: string; fileName?: string; maxBytes: number; origin?: string; test?: boolean },
): UploadLink {
  const { key, name } = uploadTarget(opts);
  const claims = {
    k: "upload" as const,
    key,
    name,
    type: extensionOf(name),
    max: opts.maxBytes,
    ref: opts.ref,
    ...(opts.test ? { test: true } : {}),
  };
  const { token, expiresAt } = services.signer.sign(claims, UPLOAD_TTL_SECONDS);
  return {
    method: "PUT",
    url: `${linkBase(services.config, opts.origin)}/api/v1/uploads/${token}`,
    headers: { "Content-Type": opts.fileName === undefined ? "application/octet-stream" : contentTypeFor(name) },
    expires_at: expiresAt,
    key,
  };
}

/** Where an upload goes: `uploads/<accountId>/<ref>/<sanitised name>`; refuses a name that is not media. */
function uploadTarget(opts: { accountId: string; ref: string; fileName?: string }): { key: string; name: string } {
  if (opts.fileName !== undefined) assertMediaFileName(opts.fileName);
  const name = opts.fileName === undefined ? UNNAMED_UPLOAD : sanitiseFileName(opts.fileName);
  return { key: `uploads/${opts.accountId}/${opts.ref}/${name}`, name };
}

/**
 * The upload address of an API episode: with media on an object store (storage.s3.uploads:
 * presigned) a presigned PUT straight to it, so the bytes bypass clipd; its size and type are
 * checked when the upload is reported done. Otherwise, and for test keys, clipd's own address.
 */
export async function episodeUploadLink(
  services: LinkServices & Pick<FacadeServices, "storage">,
  opts: { accountId: string; ref: string; fileName?: string; maxBytes: number; origin?: string; test?: boolean },
): Promise<UploadLink> {
  const s3 = services.config.storage;
  if (opts.test || s3.kind !== "s3" || s3.s3.uploads !== "presigned" || !services.storage.presignPut)
    return uploadLink(services, opts);
  const { key, name } = uploadTarget(opts);
  const type = opts.fileName === undefined ? "application/octet-stream" : contentTypeFor(name);
  const url = await services.storage.presignPut(key, { seconds: UPLOAD_TTL_SECONDS, type });
  return {
    method: "PUT",
    url,
    headers: { "Content-Type": type },
    expires_at: new Date(Date.now() + UPLOAD_TTL_SECONDS * 1000).toISOString(),
    key,
  };
}

/** The stored name of an upload whose file name was not given (no extension: the bytes decide). */
export const UNNAMED_UPLOAD = "upload";

/** A signed GET link (7 days) to a storage file, offered as `name` with Content-Type `type`. */
export function downloadLink(
  services: LinkServices,
  opts: { key: string; name: string; type?: string; origin?: string; ttlSeconds?: number; until?: Date },
): DownloadLink {
  const { token, expiresAt } = services.signer.sign(
    { k: "download", key: opts.key, name: opts.name, type: opts.type ?? contentTypeFor(opts.name) },
    opts.ttlSeconds ?? DOWNLOAD_TTL_SECONDS,
    opts.until ? Math.floor(opts.until.getTime() / 1000) : undefined,
  );
  return { url: `${linkBase(services.config, opts.origin)}/api/v1/files/${token}`, expires_at: expiresAt };
}
